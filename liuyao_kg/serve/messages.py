"""The error messages of the JSON API and of the CLI (`liuyao: error: …`) in the asker's language (zh-Hant, zh-Hans,
en, ko): one catalogue for both.

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
    "seed": {"zh": "種子", "en": "seed", "ko": "시드"},
    "tz": {"zh": "時區", "en": "time zone", "ko": "시간대"},
    "partition": {"zh": "分區", "en": "partition", "ko": "분할"},
    "jobs": {"zh": "程序數", "en": "jobs", "ko": "프로세스 수"},
    "cluster": {"zh": "叢集", "en": "cluster", "ko": "클러스터"},
    "store": {"zh": "儲存庫", "en": "store", "ko": "저장소"},
    "id": {"zh": "編號", "en": "id", "ko": "번호"},
    "record": {"zh": "記錄", "en": "record", "ko": "레코드"},
    "batch": {"zh": "批次檔", "en": "batch", "ko": "일괄 파일"},
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
    "BadDate": {"zh": "{field}「{value}」讀不出：請給 now、日期（2024-02-04）或日期時間（2024-02-04T16:28，或帶時差 "
                      "2024-02-04T16:28+08:00），時區如 Asia/Taipei、+08:00。",
                "ko": "{field} 「{value}」 을(를) 읽을 수 없습니다: now, 날짜(2024-02-04) 또는 일시(2024-02-04T16:28, "
                      "시차를 붙여 2024-02-04T16:28+08:00)를 주십시오. 시간대는 Asia/Taipei, +08:00 처럼 씁니다."},
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
    "AmbiguousDay": {"zh": "{field}「{value}」：此日交節，月建兩可：請給時刻或 --month。",
                     "ko": "{field} 「{value}」: 이날 절기가 바뀌어 월건이 둘입니다: 시각이나 --month 를 주십시오."},
    "MissingField": {"zh": "缺{field}。", "ko": "{field} 이(가) 없습니다."},
    "UnknownCastId": {"zh": "無此卦例「{value}」：請給所存卦例之編號、雜湊或 IRI（show 須 --store 或 --endpoint）。",
                      "ko": "저장된 괘례 「{value}」 이(가) 없습니다: 레코드 번호, 해시 또는 IRI 를 주십시오 "
                            "(show 에는 --store 또는 --endpoint 가 필요합니다)."},
    "DuplicateRecordId": {"zh": "編號「{value}」於此檔已用過。", "ko": "번호 「{value}」 은(는) 이 파일에서 이미 쓰였습니다."},
    "BatchError": {"zh": "批次檔讀不出，或有記錄被拒（--on-error abort）。",
                   "ko": "일괄 파일을 읽을 수 없거나, 거부된 레코드가 있습니다 (--on-error abort)."},
    "ShapeViolation": {"zh": "{field}「{value}」：卦例不合其形狀（ontology/shapes/cast.ttl）。",
                       "ko": "{field} 「{value}」: 괘례가 형태 규정(ontology/shapes/cast.ttl)에 맞지 않습니다."},
    "EditionError": {"zh": "版本檔之{field}「{value}」讀不出。", "ko": "판본 파일의 {field} 「{value}」 을(를) 읽을 수 없습니다."},
    "CorpusError": {"zh": "典籍之{field}「{value}」不合。", "ko": "문헌의 {field} 「{value}」 이(가) 맞지 않습니다."},
    "UrnError": {"zh": "引用碼之{field}「{value}」不合。", "ko": "인용 부호의 {field} 「{value}」 이(가) 맞지 않습니다."},
    "EvalCaseError": {"zh": "驗證卦例之{field}「{value}」讀不出。", "ko": "검증 괘례의 {field} 「{value}」 을(를) 읽을 수 없습니다."},
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


#: the CLI's own refusals and the errors of the stores and the named queries, by code; {…} are the error's values.
#: A CastInputError or QueryParameterError raised with a `code` is said by it; any other error by its class (its
#: nearest up the class tree). en is the error's own message where it has one (the English entry is the CLI's own
#: words for the refusals it prints itself)
ERRORS = {
    # the CLI's refusals
    "one_spec": {"zh": "請給卦（節之中孚、787986 …）、--coins 或 --random 三者之一；所給：{given}",
                 "en": "give exactly one of a spec (節之中孚, 787986 …), --coins or --random; got {given}",
                 "ko": "괘(節之中孚, 787986 …), --coins, --random 중 하나만 주십시오; 받은 것: {given}"},
    "seed_without_random": {"zh": "--seed 須與 --random 同用", "en": "--seed goes with --random",
                            "ko": "--seed 는 --random 과 함께 씁니다"},
    "tz_without_date": {"zh": "--tz 用以讀 --date（now、日期或日期時間）；有卦而無 --date，則卦無時刻",
                        "en": "--tz reads --date (now, a date, a date-time); with a spec and no --date the cast has "
                              "no moment",
                        "ko": "--tz 는 --date(now, 날짜, 일시)를 읽는 데 씁니다; 괘만 있고 --date 가 없으면 시각이 없습니다"},
    "show_needs_store": {"zh": "liuyao show 讀所存之卦例：請給 --store DIR 或 --endpoint URL",
                         "en": "show reads a stored cast: give --store DIR or --endpoint URL",
                         "ko": "liuyao show 는 저장된 괘례를 읽습니다: --store DIR 또는 --endpoint URL 을 주십시오"},
    "partition": {"zh": "--partition {value}：須為 1 以上之卦數", "en": "--partition {value}: a number of casts ≥ 1",
                  "ko": "--partition {value}: 1 이상의 괘 수여야 합니다"},
    "jobs": {"zh": "--jobs {value}：須為 1 以上之程序數", "en": "--jobs {value}: a number of jobs ≥ 1",
             "ko": "--jobs {value}: 1 이상의 프로세스 수여야 합니다"},
    "cluster_parquet": {"zh": "--cluster 須有 --parquet DIR，且只寫 Parquet：叢集之工作程序不能寫入此程序之儲存庫"
                              "（勿給 --store/--endpoint）",
                        "en": "--cluster needs --parquet DIR and writes Parquet only: its workers cannot write into "
                              "this process's store (no --store/--endpoint)",
                        "ko": "--cluster 에는 --parquet DIR 가 필요하며 Parquet 만 씁니다: 클러스터의 작업 프로세스는 이 "
                              "프로세스의 저장소에 쓸 수 없습니다 (--store/--endpoint 없이)"},
    "jobs_with_cluster": {"zh": "--jobs 不與 --cluster 同用：分區由叢集之工作程序推導（--jobs 為本機之工作程序）",
                          "en": "--jobs with --cluster: the cluster's workers derive the partitions (--jobs is for "
                                "worker processes of this machine)",
                          "ko": "--jobs 는 --cluster 와 함께 쓰지 않습니다: 분할은 클러스터의 작업 프로세스가 도출합니다 "
                                "(--jobs 는 이 컴퓨터의 작업 프로세스용)"},
    "sample": {"zh": "--sample 須至少為 1", "en": "--sample must be at least 1", "ko": "--sample 은 1 이상이어야 합니다"},
    "line": {"zh": "--line {value}：爻位為 1（初爻）至 6（上爻）",
             "en": "--line {value}: a line position is 1 (bottom) … 6 (top)",
             "ko": "--line {value}: 효의 자리는 1(초효)부터 6(상효)까지입니다"},
    "timing": {"zh": "--timing {value}：此卦有應期 {n} 個", "en": "--timing {value}: the cast has {n} timing candidate(s)",
               "ko": "--timing {value}: 이 괘의 응기 후보는 {n} 개입니다"},
    "nothing_loaded": {"zh": "無一載入：全部 {n:,} 筆記錄皆被拒", "en": "nothing loaded: every record ({n:,}) was rejected",
                       "ko": "아무것도 적재되지 않았습니다: 레코드 {n:,} 건 모두 거부되었습니다"},
    "rejected_strict": {"zh": "{n:,} 筆中拒收 {rejected:,} 筆（--strict）；其餘 {kept:,} 筆已載入",
                        "en": "{rejected:,} of {n:,} records rejected (--strict); the other {kept:,} are loaded",
                        "ko": "레코드 {n:,} 건 중 {rejected:,} 건 거부 (--strict); 나머지 {kept:,} 건은 적재되었습니다"},
    "mcp_sdk": {"zh": "`liuyao mcp` 須裝 MCP SDK：pip install 'liuyao-kg[mcp]'",
                "en": "`liuyao mcp` needs the MCP SDK: pip install 'liuyao-kg[mcp]'",
                "ko": "`liuyao mcp` 에는 MCP SDK 가 필요합니다: pip install 'liuyao-kg[mcp]'"},
    "record_problem": {"zh": "第 {line} 行（{id}）：{reason}", "en": "line {line} ({id}): {reason}",
                       "ko": "{line}행 ({id}): {reason}"},
    "param_syntax": {"zh": "--param 須為 K=V，而得 {value}", "en": "--param needs K=V, got {value}",
                     "ko": "--param 은 K=V 형식이어야 하는데 {value} 이(가) 왔습니다"},
    # the named queries' parameters (liuyao_kg.queries.QueryParameterError)
    "no_query": {"zh": "無此查詢「{name}」；可用：{known}", "ko": "「{name}」 이라는 질의가 없습니다; 있는 것: {known}"},
    "no_param": {"zh": "查詢「{query}」無參數「{name}」（其參數：{known}）",
                 "ko": "질의 「{query}」 에는 매개변수 「{name}」 이(가) 없습니다 (매개변수: {known})"},
    "missing_params": {"zh": "查詢「{query}」須給參數：{names}", "ko": "질의 「{query}」 에 매개변수가 필요합니다: {names}"},
    "control_char": {"zh": "參數 {name} 含控制字元（換行、NUL …），不可", "ko": "매개변수 {name} 에 제어 문자(줄바꿈, NUL …)가 있습니다"},
    "not_integer": {"zh": "參數 {name} 須為整數，而得 {value}", "ko": "매개변수 {name} 은(는) 정수여야 하는데 {value} 이(가) 왔습니다"},
    "not_iri": {"zh": "參數 {name} 須為絕對 IRI，而得 {value}", "ko": "매개변수 {name} 은(는) 절대 IRI 여야 하는데 {value} 이(가) 왔습니다"},
    "unknown_state": {"zh": "無此狀態「{value}」（可給其名如 MonthBroken，或其詞如 月破）",
                      "ko": "알 수 없는 상태 「{value}」 (MonthBroken 같은 이름이나 月破 같은 용어를 주십시오)"},
    "QueryParameterError": {"zh": "查詢之參數不合", "ko": "질의의 매개변수가 맞지 않습니다"},
    # the stores
    "StoreBusyError": {"zh": "儲存庫 {store} 為另一程序所用（執行中之 liuyao serve、liuyao load 或 liuyao upgrade）：待其結束，或以 "
                             "--read-only 讀之",
                       "ko": "저장소 {store} 을(를) 다른 프로세스(실행 중인 liuyao serve, liuyao load, liuyao upgrade)가 쓰고 있습니다: "
                             "끝나기를 기다리거나 --read-only 로 읽으십시오"},
    "StoreAccessError": {"zh": "儲存庫 {store} 不能讀寫（唯讀之檔案系統、權限，或無此目錄，或以唯讀開啟）",
                         "ko": "저장소 {store} 을(를) 읽거나 쓸 수 없습니다 (읽기 전용 파일 시스템, 권한, 없는 디렉터리, "
                               "또는 읽기 전용으로 열림)"},
    "StoreFullError": {"zh": "儲存庫 {store} 所在之磁碟已滿；未留半寫之資料",
                       "ko": "저장소 {store} 의 디스크가 가득 찼습니다; 절반만 쓰인 것은 남기지 않았습니다"},
    "StoreError": {"zh": "儲存庫 {store} 不能開啟或寫入；請再試", "ko": "저장소 {store} 을(를) 열거나 쓸 수 없습니다; 다시 시도하십시오"},
    "OutdatedStoreError": {"zh": "儲存庫 {store} 已舊（其層由另一規則庫所寫）：請先執行 liuyao upgrade --store {store}",
                           "ko": "저장소 {store} 이(가) 낡았습니다 (다른 규칙 기반이 쓴 층): 먼저 liuyao upgrade --store "
                                 "{store} 를 실행하십시오"},
    "RemoteStoreError": {"zh": "SPARQL 端點不能用：請查其 URL、帳密（LIUYAO_ENDPOINT_USER、LIUYAO_ENDPOINT_PASSWORD）"
                               "與連線（docs/remote-stores.md）",
                         "ko": "SPARQL 엔드포인트를 쓸 수 없습니다: URL, 자격 증명(LIUYAO_ENDPOINT_USER, "
                               "LIUYAO_ENDPOINT_PASSWORD)과 연결을 확인하십시오 (docs/remote-stores.md)"},
}
#: the word before a CLI error: `liuyao: error: …`
ERROR_WORD = {"zh": "錯誤", "en": "error", "ko": "오류"}


#: an input error that names no field and no value (a malformed file, a case, an edition): what it is, and where its
#: detail is said (the English message names the case, the entry, the line)
BARE_ERRORS = {
    "EvalCaseError": {"zh": "驗證卦例檔有誤", "ko": "검증 괘례 파일에 오류가 있습니다"},
    "CorpusError": {"zh": "典籍或其版本有誤", "ko": "문헌이나 판본에 오류가 있습니다"},
    "UrnError": {"zh": "引用碼（urn:liuyao:…）不合其式", "ko": "인용 부호(urn:liuyao:…)가 형식에 맞지 않습니다"},
    "EditionError": {"zh": "版本檔有誤", "ko": "판본 파일에 오류가 있습니다"},
    "BatchError": {"zh": "批次檔讀不出，或有記錄被拒（--on-error abort）", "ko": "일괄 파일을 읽을 수 없거나, 거부된 레코드가 "
                                                                     "있습니다 (--on-error abort)"},
    "CastInputError": {"zh": "輸入有誤", "ko": "입력에 오류가 있습니다"},
}
DETAIL_IN_ENGLISH = {"zh": "（--lang en 詳言其處）", "ko": " (--lang en 으로 자세한 위치를 볼 수 있습니다)"}


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
    if err.field in (None, "batch") and err.value in (None, ""):  # nothing to quote: what it is, and where to read more
        kind = next(c.__name__ for c in type(err).__mro__ if c.__name__ in BARE_ERRORS)
        base = i18n.base(lang)
        return i18n.to_lang(BARE_ERRORS[kind][base] + DETAIL_IN_ENGLISH[base], lang)
    kind = next(c.__name__ for c in type(err).__mro__ if c.__name__ in CAST_ERRORS)
    text = i18n.to_lang(CAST_ERRORS[kind][i18n.base(lang)], lang)
    return text.format(field=label(err.field, lang), value=_value(err.value))


def error_code(err) -> str | None:
    """The catalogue's entry for an error: its own `code`, else its class's (the nearest up the class tree)."""
    code = getattr(err, "code", None)
    if code in ERRORS:
        return code
    return next((c.__name__ for c in type(err).__mro__ if c.__name__ in ERRORS or c.__name__ in CAST_ERRORS), None)


def say(code: str, lang: str, **values) -> str:
    """One of ERRORS in `lang` (its en entry, or the English `message` given), the values kept as given."""
    entry = ERRORS[code]
    text = entry.get(i18n.base(lang)) or values.pop("message")
    return i18n.to_lang(text, lang).format(**{k: _value(v) if not isinstance(v, int) else v
                                              for k, v in values.items()})


def error(err, lang: str) -> str:
    """Any error the CLI reports, said in `lang` (the line after `liuyao: error:`): a cast's bad input as the API says
    it (cast_error), the rest by their code; en is the error's own message. An error the catalogue has no entry for
    is a KeyError (tests/cli/test_languages.py tries every class the CLI reports, in every language)."""
    code = error_code(err)
    if code is None:
        raise KeyError(f"no message for {type(err).__name__} in serve/messages.py")
    if i18n.base(lang) == "en":
        return str(err)
    if code in ERRORS:
        values = {"value": getattr(err, "value", ""), "store": _store(str(err)), **(getattr(err, "values", None) or {})}
        return say(code, lang, **values)
    said = cast_error(err, lang)
    for problem in getattr(err, "problems", ()):  # a batch's rejected records, each with its line and id
        said += "\n  - " + say("record_problem", lang, line=problem.line, id=problem.record_id,
                                reason=error(problem, lang))
    return said


def _store(message: str) -> str:
    """The store a store error names (`store PATH: …`, `store PATH was …`), else empty."""
    import re

    m = re.match(r"store (.+?)(?::| is | was | cannot )", message)
    return m.group(1) if m else ""
