"""The JSON API's error messages in the asker's language (zh-Hant, zh-Hans, en, ko).

A cast's bad input is a CastInputError whose message (the CLI's) is English; here the same problem is said again in
zh-Hant and ko from what the error carries — its kind (class), its field and the value given — so a reader on a
繁中 or 한국어 page never meets English. zh-Hans is the zh-Hant text through OpenCC (i18n.to_lang); en is the CLI's
own message, whole. The API's own refusals (an unknown field, a field of the wrong type …) are written in all three.
"""
from __future__ import annotations

import json

from liuyao_kg.chart import i18n

#: the request fields by name, as a reader sees them (the web reader's form labels say the same)
FIELDS = {
    "spec": {"zh": "卦", "en": "hexagram", "ko": "괘"},
    "lines": {"zh": "爻值", "en": "line values", "ko": "효값"},
    "coins": {"zh": "錢", "en": "coins", "ko": "동전"},
    "month": {"zh": "月", "en": "month", "ko": "월"},
    "day": {"zh": "日", "en": "day", "ko": "일"},
    "year": {"zh": "年", "en": "year", "ko": "년"},
    "birth": {"zh": "本命", "en": "birth year", "ko": "본명"},
    "sex": {"zh": "性別", "en": "sex", "ko": "성별"},
    "date": {"zh": "時間", "en": "date", "ko": "일시"},
    "day_boundary": {"zh": "換日", "en": "day boundary", "ko": "날의 경계"},
    "topic": {"zh": "占事", "en": "topic", "ko": "점사"},
    "about": {"zh": "所占之人", "en": "whom it concerns", "ko": "점치는 대상"},
    "use_god": {"zh": "用神", "en": "use-god", "ko": "용신"},
    "school": {"zh": "流派", "en": "school", "ko": "유파"},
    "horizon": {"zh": "應期單位", "en": "timing unit", "ko": "응기 단위"},
    "lang": {"zh": "語言", "en": "language", "ko": "언어"},
    "rule": {"zh": "規則", "en": "rule", "ko": "규칙"},
    "line": {"zh": "爻位", "en": "line", "ko": "효 위치"},
}

#: a CastInputError's kind (its class name) → the problem, with {field} (its label) and {value}
CAST_ERRORS = {
    "UnknownHexagram": {
        "zh": "無此卦「{value}」：卦可寫作卦名（節、水澤節）、之卦（節之中孚）、六爻之數由下而上（787986）或單拆重交。",
        "ko": "알 수 없는 괘 「{value}」: 괘 이름(節, 水澤節), 변괘 쌍(節之中孚), 아래에서 위로 여섯 효의 수(787986) "
              "또는 單拆重交로 쓰십시오."},
    "BadLineValue": {
        "zh": "{field}「{value}」不合：六爻由下而上，每爻為 6、7、8 或 9（錢則六擲，每擲三錢，字或背）。",
        "ko": "{field} 「{value}」 이(가) 맞지 않습니다: 여섯 효를 아래에서 위로, 각 효는 6, 7, 8, 9 "
              "(동전은 여섯 번, 매번 세 닢, 字 또는 背)."},
    "ImpossibleStemBranch": {
        "zh": "{field}「{value}」不在六十甲子之中：陽干配陽支，陰干配陰支。",
        "ko": "{field} 「{value}」 은(는) 육십갑자에 없습니다: 양간은 양지와, 음간은 음지와 짝합니다."},
    "UnknownStem": {"zh": "{field}「{value}」：非十天干之一（甲乙丙丁戊己庚辛壬癸）。",
                    "ko": "{field} 「{value}」: 십천간(甲乙丙丁戊己庚辛壬癸)이 아닙니다."},
    "UnknownBranch": {"zh": "{field}「{value}」：非十二地支之一（子丑寅卯辰巳午未申酉戌亥）。",
                      "ko": "{field} 「{value}」: 십이지지(子丑寅卯辰巳午未申酉戌亥)가 아닙니다."},
    "InconsistentCast": {"zh": "{field}「{value}」與其餘所給不合（如卦名與爻值、時間與月日）。",
                         "ko": "{field} 「{value}」 이(가) 다른 입력과 맞지 않습니다(괘 이름과 효값, 일시와 월일 등)."},
    "BadDate": {"zh": "{field}「{value}」讀不出：請給帶時區之日期時間，如 2024-02-04T16:28+08:00。",
                "ko": "{field} 「{value}」 을(를) 읽을 수 없습니다: 시간대가 있는 일시를 주십시오. 예: 2024-02-04T16:28+08:00."},
    "UnknownTopic": {"zh": "無此占事「{value}」：如 求財、婚姻、疾病、官事、晴雨、出行、失物。",
                     "ko": "알 수 없는 점사 「{value}」: 예를 들어 求財, 婚姻, 疾病, 官事, 晴雨, 出行, 失物."},
    "UnknownSubject": {"zh": "所占之人「{value}」不識：如 父母、夫、妻、子、兄弟、朋友、奴僕、他人。",
                       "ko": "점치는 대상 「{value}」 을(를) 알 수 없습니다: 예를 들어 父母, 夫, 妻, 子, 兄弟, 朋友, 奴僕, 他人."},
    "UnknownSchool": {"zh": "流派「{value}」於此不可用：讀法之流派為卜筮正宗或易冒；用神之流派須占事有異說者。",
                      "ko": "유파 「{value}」 은(는) 여기서 쓸 수 없습니다: 판단의 유파는 卜筮正宗 또는 易冒이고, "
                            "용신의 유파는 문헌이 갈리는 점사에만 있습니다."},
    "BadUseGod": {"zh": "用神「{value}」：須為六親（父母、兄弟、妻財、官鬼、子孫）或爻位 1 至 6。",
                  "ko": "용신 「{value}」: 육친(父母, 兄弟, 妻財, 官鬼, 子孫) 또는 효의 자리 1–6 이어야 합니다."},
    "BadSex": {"zh": "性別「{value}」：須為 男 或 女。", "ko": "성별 「{value}」: 男 또는 女 이어야 합니다."},
    "MissingField": {"zh": "缺{field}。", "ko": "{field} 이(가) 없습니다."},
    "CastInputError": {"zh": "{field}「{value}」讀不出。", "ko": "{field} 「{value}」 을(를) 읽을 수 없습니다."},
}

#: the API's own refusals, in every language
API_ERRORS = {
    "unknown_field": {"zh": "不識之欄位：{names}；起卦之欄位為 {fields}",
                      "en": "unknown field(s) {names}; a cast takes {fields}",
                      "ko": "알 수 없는 항목: {names}; 괘에 쓰는 항목은 {fields}"},
    "not_string": {"zh": "{field}（{name}）須為字串，而得 {value}", "en": "field {name} must be a string, got {value}",
                   "ko": "{field}({name}) 은(는) 문자열이어야 하는데 {value} 이(가) 왔습니다"},
    "not_strings": {"zh": "{field}（{name}）須為字串或字串之列，而得 {value}",
                    "en": "field {name} must be a string or a list of strings, got {value}",
                    "ko": "{field}({name}) 은(는) 문자열 또는 문자열 목록이어야 하는데 {value} 이(가) 왔습니다"},
    "spec_and_coins": {"zh": "卦與錢只給其一", "en": "give spec or coins, not both", "ko": "괘와 동전 중 하나만 주십시오"},
    "horizon": {"zh": "應期單位「{value}」：須為 日、月 或 年", "en": "horizon {value!r}: one of 日 (day), 月 (month), 年 (year)",
                "ko": "응기 단위 「{value}」: 日, 月, 年 중 하나여야 합니다"},
    "line": {"zh": "爻位「{value}」：爻位為 1（初爻）至 6（上爻）",
             "en": "line {value!r}: a line position is 1 (bottom) … 6 (top)",
             "ko": "효 위치 「{value}」: 효의 자리는 1(초효)부터 6(상효)까지입니다"},
}


def label(field: str | None, lang: str) -> str:
    entry = FIELDS.get(field or "")
    return i18n.to_lang(entry[i18n.base(lang)], lang) if entry else (field or "")


def _value(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def api_error(key: str, lang: str, **values) -> str:
    """One of API_ERRORS in `lang`; {field} is filled with the label of `name`."""
    text = i18n.to_lang(API_ERRORS[key][i18n.base(lang)], lang)  # the template converted, the values kept as given
    return text.format(field=label(values.get("name"), lang), **values)


def cast_error(err, lang: str) -> str:
    """A CastInputError said in `lang`: en is the CLI's message; zh-Hant, zh-Hans and ko are written from the error's
    kind, field and value (its nearest kind up the class tree, CastInputError itself at the last)."""
    if i18n.base(lang) == "en":
        return str(err)
    kind = next(c.__name__ for c in type(err).__mro__ if c.__name__ in CAST_ERRORS)
    text = i18n.to_lang(CAST_ERRORS[kind][i18n.base(lang)], lang)
    return text.format(field=label(err.field, lang), value=_value(err.value))
