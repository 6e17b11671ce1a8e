"""Compact reference tables: the single source the reference graph is generated from.

Only *reference facts* live here (names, King Wen order, trigram lines, 納甲, 納音 …). Nothing about a
cast is computed here: the reasoner derives every chart state from these facts inside the graph.
The loaders use the name tables only to normalise user input (a hexagram name → its line pattern).
"""
from __future__ import annotations

STEMS = "甲乙丙丁戊己庚辛壬癸"
STEM_IDS = ["Jia", "Yi", "Bing", "Ding", "Wu", "Ji", "Geng", "Xin", "Ren", "Gui"]
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
BRANCH_IDS = ["Zi", "Chou", "Yin", "Mao", "Chen", "Si", "Wu", "Wei", "Shen", "You", "Xu", "Hai"]

ELEMENTS = "木火土金水"
ELEMENT_IDS = ["Wood", "Fire", "Earth", "Metal", "Water"]
ELEMENT_EN = ["wood", "fire", "earth", "metal", "water"]
ELEMENT_KO = ["목", "화", "토", "금", "수"]
# 生: wood→fire→earth→metal→water→wood (index + 1); 克: index + 2.
STEM_ELEMENT = "木木火火土土金金水水"
BRANCH_ELEMENT = "水土木木土火火土金金土水"

# Trigrams: lines bottom-up (1 = yang). Order is the Later-Heaven palace order used by 京房 八宮.
TRIGRAMS = {
    # name: (id, lines bottom-up, nature, simplified nature, element, inner 納甲, outer 納甲)
    "乾": ("Qian", (1, 1, 1), "天", "天", "金", "甲子 甲寅 甲辰", "壬午 壬申 壬戌"),
    "坎": ("Kan", (0, 1, 0), "水", "水", "水", "戊寅 戊辰 戊午", "戊申 戊戌 戊子"),
    "艮": ("Gen", (0, 0, 1), "山", "山", "土", "丙辰 丙午 丙申", "丙戌 丙子 丙寅"),
    "震": ("Zhen", (1, 0, 0), "雷", "雷", "木", "庚子 庚寅 庚辰", "庚午 庚申 庚戌"),
    "巽": ("Xun", (0, 1, 1), "風", "风", "木", "辛丑 辛亥 辛酉", "辛未 辛巳 辛卯"),
    "離": ("Li", (1, 0, 1), "火", "火", "火", "己卯 己丑 己亥", "己酉 己未 己巳"),
    "坤": ("Kun", (0, 0, 0), "地", "地", "土", "乙未 乙巳 乙卯", "癸丑 癸亥 癸酉"),
    "兌": ("Dui", (1, 1, 0), "澤", "泽", "金", "丁巳 丁卯 丁丑", "丁亥 丁酉 丁未"),
}
# Trigram gender (說卦 family: 乾 father, 震 坎 艮 sons = 陽卦; 坤 mother, 巽 離 兌 daughters = 陰卦); 天玄賦 婚姻章
# calls 離為火 「純陰之象」. Used by the condition language's 內:陽卦 / 外:陰卦 (passage TrigramGender).
YANG_TRIGRAMS = "乾震坎艮"
YIN_TRIGRAMS = "坤巽離兌"
# 反吟: the trigrams facing each other across the 後天 square, whose branches clash (卜筮正宗 反吟卦定例第十一:
# 「此乾巽二卦相衝反吟卦也」 …), each pair with its passage id.
OPPOSED_TRIGRAMS = [("乾", "巽", "BuZhengFanYinQianXun"), ("坎", "離", "BuZhengFanYinKanLi"),
                    ("艮", "坤", "BuZhengFanYinGenKun"), ("震", "兌", "BuZhengFanYinZhenDui")]
TRIGRAM_EN = {"乾": "Heaven", "坎": "Water", "艮": "Mountain", "震": "Thunder",
              "巽": "Wind", "離": "Fire", "坤": "Earth", "兌": "Lake"}
TRIGRAM_KO = {"乾": "건", "坎": "감", "艮": "간", "震": "진", "巽": "손", "離": "리", "坤": "곤", "兌": "태"}

# King Wen order: (number, short name, upper trigram, lower trigram, pinyin, English, Korean)
HEXAGRAMS = [
    (1, "乾", "乾", "乾", "Qian", "The Creative", "건"),
    (2, "坤", "坤", "坤", "Kun", "The Receptive", "곤"),
    (3, "屯", "坎", "震", "Zhun", "Difficulty at the Beginning", "둔"),
    (4, "蒙", "艮", "坎", "Meng", "Youthful Folly", "몽"),
    (5, "需", "坎", "乾", "Xu", "Waiting", "수"),
    (6, "訟", "乾", "坎", "Song", "Conflict", "송"),
    (7, "師", "坤", "坎", "Shi", "The Army", "사"),
    (8, "比", "坎", "坤", "Bi", "Holding Together", "비"),
    (9, "小畜", "巽", "乾", "XiaoXu", "Small Taming", "소축"),
    (10, "履", "乾", "兌", "Lü", "Treading", "리"),
    (11, "泰", "坤", "乾", "Tai", "Peace", "태"),
    (12, "否", "乾", "坤", "Pi", "Standstill", "비"),
    (13, "同人", "乾", "離", "TongRen", "Fellowship", "동인"),
    (14, "大有", "離", "乾", "DaYou", "Great Possession", "대유"),
    (15, "謙", "坤", "艮", "Qian", "Modesty", "겸"),
    (16, "豫", "震", "坤", "Yu", "Enthusiasm", "예"),
    (17, "隨", "兌", "震", "Sui", "Following", "수"),
    (18, "蠱", "艮", "巽", "Gu", "Work on the Decayed", "고"),
    (19, "臨", "坤", "兌", "Lin", "Approach", "림"),
    (20, "觀", "巽", "坤", "Guan", "Contemplation", "관"),
    (21, "噬嗑", "離", "震", "ShiHe", "Biting Through", "서합"),
    (22, "賁", "艮", "離", "Bi", "Grace", "비"),
    (23, "剝", "艮", "坤", "Bo", "Splitting Apart", "박"),
    (24, "復", "坤", "震", "Fu", "Return", "복"),
    (25, "無妄", "乾", "震", "WuWang", "Innocence", "무망"),
    (26, "大畜", "艮", "乾", "DaXu", "Great Taming", "대축"),
    (27, "頤", "艮", "震", "Yi", "Nourishment", "이"),
    (28, "大過", "兌", "巽", "DaGuo", "Great Exceeding", "대과"),
    (29, "坎", "坎", "坎", "Kan", "The Abysmal", "감"),
    (30, "離", "離", "離", "Li", "The Clinging", "리"),
    (31, "咸", "兌", "艮", "Xian", "Influence", "함"),
    (32, "恆", "震", "巽", "Heng", "Duration", "항"),
    (33, "遯", "乾", "艮", "Dun", "Retreat", "둔"),
    (34, "大壯", "震", "乾", "DaZhuang", "Great Power", "대장"),
    (35, "晉", "離", "坤", "Jin", "Progress", "진"),
    (36, "明夷", "坤", "離", "MingYi", "Darkening of the Light", "명이"),
    (37, "家人", "巽", "離", "JiaRen", "The Family", "가인"),
    (38, "睽", "離", "兌", "Kui", "Opposition", "규"),
    (39, "蹇", "坎", "艮", "Jian", "Obstruction", "건"),
    (40, "解", "震", "坎", "Xie", "Deliverance", "해"),
    (41, "損", "艮", "兌", "Sun", "Decrease", "손"),
    (42, "益", "巽", "震", "Yi", "Increase", "익"),
    (43, "夬", "兌", "乾", "Guai", "Breakthrough", "쾌"),
    (44, "姤", "乾", "巽", "Gou", "Coming to Meet", "구"),
    (45, "萃", "兌", "坤", "Cui", "Gathering Together", "췌"),
    (46, "升", "坤", "巽", "Sheng", "Pushing Upward", "승"),
    (47, "困", "兌", "坎", "Kun", "Oppression", "곤"),
    (48, "井", "坎", "巽", "Jing", "The Well", "정"),
    (49, "革", "兌", "離", "Ge", "Revolution", "혁"),
    (50, "鼎", "離", "巽", "Ding", "The Cauldron", "정"),
    (51, "震", "震", "震", "Zhen", "The Arousing", "진"),
    (52, "艮", "艮", "艮", "Gen", "Keeping Still", "간"),
    (53, "漸", "巽", "艮", "Jian", "Development", "점"),
    (54, "歸妹", "震", "兌", "GuiMei", "The Marrying Maiden", "귀매"),
    (55, "豐", "震", "離", "Feng", "Abundance", "풍"),
    (56, "旅", "離", "艮", "Lü", "The Wanderer", "려"),
    (57, "巽", "巽", "巽", "Xun", "The Gentle", "손"),
    (58, "兌", "兌", "兌", "Dui", "The Joyous", "태"),
    (59, "渙", "巽", "坎", "Huan", "Dispersion", "환"),
    (60, "節", "坎", "兌", "Jie", "Limitation", "절"),
    (61, "中孚", "巽", "兌", "ZhongFu", "Inner Truth", "중부"),
    (62, "小過", "震", "艮", "XiaoGuo", "Small Exceeding", "소과"),
    (63, "既濟", "坎", "離", "JiJi", "After Completion", "기제"),
    (64, "未濟", "離", "坎", "WeiJi", "Before Completion", "미제"),
]

# Character variants accepted in input names (simplified and common alternative forms → the
# traditional form used in the graph). Applied per character, so '水泽节' → '水澤節'.
NAME_VARIANTS = {
    "节": "節", "泽": "澤", "风": "風", "为": "為", "讼": "訟", "师": "師", "谦": "謙", "随": "隨",
    "蛊": "蠱", "临": "臨", "观": "觀", "贲": "賁", "剥": "剝", "复": "復", "无": "無", "颐": "頤",
    "过": "過", "离": "離", "恒": "恆", "遁": "遯", "晋": "晉", "损": "損", "归": "歸", "渐": "漸",
    "丰": "豐", "兑": "兌", "涣": "渙", "济": "濟", "壮": "壯", "畜": "畜", "际": "際",
}

# 納音 of the 60 jiazi, in pairs starting at 甲子.
NAYIN = [
    "海中金", "爐中火", "大林木", "路旁土", "劍鋒金", "山頭火", "澗下水", "城頭土", "白蠟金", "楊柳木",
    "泉中水", "屋上土", "霹靂火", "松柏木", "長流水", "沙中金", "山下火", "平地木", "壁上土", "金箔金",
    "覆燈火", "天河水", "大驛土", "釵釧金", "桑柘木", "大溪水", "沙中土", "天上火", "石榴木", "大海水",
]

RELATIVES = {  # relation of line element to palace element → 六親
    "same": ("兄弟", "Siblings", "형제"),
    "palace_generates": ("子孫", "Offspring", "자손"),
    "palace_overcomes": ("妻財", "Wealth", "처재"),
    "overcomes_palace": ("官鬼", "Officer", "관귀"),
    "generates_palace": ("父母", "Parents", "부모"),
}

SPIRITS = [  # order from line 1 upward; (zh, id, en, ko)
    ("青龍", "AzureDragon", "Azure Dragon", "청룡"),
    ("朱雀", "VermilionBird", "Vermilion Bird", "주작"),
    ("勾陳", "HookedArray", "Hooked Array", "구진"),
    ("螣蛇", "SoaringSerpent", "Soaring Serpent", "등사"),
    ("白虎", "WhiteTiger", "White Tiger", "백호"),
    ("玄武", "BlackTortoise", "Black Tortoise", "현무"),
]
# Day stem → spirit on line 1 (index into SPIRITS): 甲乙 青龍, 丙丁 朱雀, 戊 勾陳, 己 螣蛇, 庚辛 白虎, 壬癸 玄武.
SPIRIT_START = [0, 0, 1, 1, 2, 3, 4, 4, 5, 5]

STAGES = [  # 十二長生 in order; (zh, id, en, ko)
    ("長生", "Birth", "birth", "장생"), ("沐浴", "Bathing", "bathing", "목욕"),
    ("冠帶", "Capping", "capping", "관대"), ("臨官", "Office", "coming to office", "임관"),
    ("帝旺", "Prime", "prime", "제왕"), ("衰", "Decline", "decline", "쇠"),
    ("病", "Sickness", "sickness", "병"), ("死", "Death", "death", "사"),
    ("墓", "Tomb", "tomb", "묘"), ("絕", "Severance", "severance", "절"),
    ("胎", "Womb", "womb", "태"), ("養", "Nurture", "nurture", "양"),
]
# Element → branch of 長生 (易冒: 金生巳, 木生亥, 火生寅, 水土生申).
ELEMENT_BIRTH = {"木": "亥", "火": "寅", "土": "申", "金": "巳", "水": "申"}
# Variant (易冒 records it): the ten stems' 長生 with yin stems counting backwards; 戊生寅, 己生酉.
STEM_BIRTH = {"甲": "亥", "乙": "午", "丙": "寅", "丁": "酉", "戊": "寅",
              "己": "酉", "庚": "巳", "辛": "子", "壬": "申", "癸": "卯"}

STRENGTHS = [  # (zh, id, en, ko)
    ("旺", "Prosperous", "prosperous", "왕"), ("相", "Strong", "strong", "상"),
    ("休", "Resting", "resting", "휴"), ("囚", "Imprisoned", "imprisoned", "수"),
    ("死", "Dead", "dead", "사"),
]

# 火珠林 reads strength by the four seasons only (春 寅卯辰 … 冬 亥子丑): no month of its own for earth.
SEASON_ELEMENT = {"寅": "木", "卯": "木", "辰": "木", "巳": "火", "午": "火", "未": "火",
                  "申": "金", "酉": "金", "戌": "金", "亥": "水", "子": "水", "丑": "水"}

GENERATIONS = [  # (zh, id, en, ko, shi line)
    ("本宮", "PureGeneration", "pure palace", "본궁", 6),
    ("一世", "Generation1", "first generation", "일세", 1),
    ("二世", "Generation2", "second generation", "이세", 2),
    ("三世", "Generation3", "third generation", "삼세", 3),
    ("四世", "Generation4", "fourth generation", "사세", 4),
    ("五世", "Generation5", "fifth generation", "오세", 5),
    ("遊魂", "WanderingSoul", "wandering soul", "유혼", 4),
    ("歸魂", "ReturningSoul", "returning soul", "귀혼", 3),
]

# Branch relations (天玄賦 身命章).
CLASH_PAIRS = ["子午", "丑未", "寅申", "卯酉", "辰戌", "巳亥"]
COMBINE_PAIRS = ["子丑", "寅亥", "卯戌", "辰酉", "巳申", "午未"]
HARM_PAIRS = ["子未", "丑午", "寅巳", "卯辰", "申亥", "酉戌"]
# 刑 is directed: 子刑卯 卯刑子; 寅刑巳 巳刑申 申刑寅; 丑刑戌 戌刑未 未刑丑; 辰午酉亥 自刑.
PUNISHMENTS = ["子卯", "卯子", "寅巳", "巳申", "申寅", "丑戌", "戌未", "未丑", "辰辰", "午午", "酉酉", "亥亥"]
TRIPLE_COMBINES = [("申子辰", "水"), ("亥卯未", "木"), ("寅午戌", "火"), ("巳酉丑", "金")]

# Element tombs (墓/庫): 金丑 木未 火戌 水土辰.
ELEMENT_TOMB = {"金": "丑", "木": "未", "火": "戌", "水": "辰", "土": "辰"}

# 進神/退神 (天玄賦): stem-branch lists.
JIN_SHEN_TIANXUAN = ["甲子", "甲午", "己卯", "己酉"]
TUI_SHEN_TIANXUAN = ["壬戌", "壬辰", "丁丑", "丁未"]
# 化進 (later convention): the branch a moving line changes into advances within its element.
HUA_JIN_LATER = ["亥子", "寅卯", "巳午", "申酉", "丑辰", "辰未", "未戌", "戌丑"]

LIUCHONG_HEXAGRAMS = ["乾", "坤", "震", "巽", "坎", "離", "艮", "兌", "無妄", "大壯"]
LIUHE_HEXAGRAMS = ["否", "泰", "豫", "復", "節", "困", "旅", "賁"]

PALACE_ORDER = ["乾", "坎", "艮", "震", "巽", "離", "坤", "兌"]


def jiazi() -> list[str]:
    """The sixty stem-branch pairs in cycle order (甲子 … 癸亥)."""
    return [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]


def hexagram_lines(upper: str, lower: str) -> tuple[int, ...]:
    """Yang/yin pattern bottom-up for a trigram pair."""
    return TRIGRAMS[lower][1] + TRIGRAMS[upper][1]


def full_name(short: str, upper: str, lower: str) -> str:
    """Conventional long name: 水澤節, or 坎為水 for a pure hexagram."""
    if upper == lower:
        return f"{short}為{TRIGRAMS[upper][2]}"
    return TRIGRAMS[upper][2] + TRIGRAMS[lower][2] + short

# The questions (占事) as a SKOS concept scheme (reference.ttl: lyr:Question…, skos:broader). Every question a
# seed chapter or worked case asks. A chapter rule for a question applies to it and to every narrower one.
# (zh, id, en, ko, broader zh or None, alternative labels, passage id of the chapter / case that asks it)
QUESTIONS = [
    ("求財", "Wealth", "seeking wealth", "구재", None, ("求财", "求利", "買賣", "生意", "財運", "投資", "投资", "股票", "理財", "money", "investment"), "UseGodTopics"),
    ("營謀", "Dealings", "plans and dealings", "영모", None, ("营谋", "謀望", "謀事", "私用"), "UseGodOfficialPrivate"),
    ("家宅", "House", "the house", "가택", None, ("家事", "宅", "住宅"), "QuestionHouse"),
    ("卜居", "Residence", "choosing a residence", "복거", "家宅", ("居所", "擇居", "遷居"), "QuestionResidence"),
    ("婚姻", "Marriage", "marriage", "혼인", None, ("婚", "嫁娶", "結婚", "感情", "戀愛", "恋爱", "姻緣", "love", "romance"), "UseGodTopics-3"),
    ("疾病", "Illness", "illness", "질병", None, ("病", "占病", "病症", "健康", "health", "sickness"), "QuestionIllness"),
    ("醫藥", "Medicine", "doctor and medicine", "의약", "疾病", ("医药", "醫", "藥"), "UseGodTopics-13"),
    ("祟", "Haunting", "the spirit behind an illness", "수", "疾病", ("鬼祟", "鬼神", "占祟"), "QuestionHaunting"),
    ("身命", "LifeDestiny", "body and destiny", "신명", None, ("命", "終身"), "UseGodTopics-6"),
    ("自身", "Self", "oneself", "자신", None, ("本身",), "UseGodTopics-6"),
    ("產育", "Childbirth", "childbirth", "산육", None, ("产育", "生產", "胎產", "產"), "UseGodTopics-7"),
    ("田蠶", "FarmingSilkworms", "fields and silkworms", "전잠", None, ("田蚕", "農桑"), "UseGodTopics-8"),
    ("農", "Farming", "farming", "농사", "田蠶", ("农", "農田", "种作", "種作", "耕種"), "UseGodTopics-9"),
    ("蠶", "Silkworms", "silkworms", "잠사", "田蠶", ("蚕", "蠶桑", "蚕桑", "養蠶"), "QuestionSilkworms"),
    ("天時", "Weather", "weather", "천시", None, ("天时", "天氣", "天文", "weather"), "UseGodTopics-10"),
    ("晴", "FairWeather", "fair weather", "맑음", "天時", ("占晴", "開晴", "晴天"), "QuestionFair"),
    ("雨", "Rain", "rain", "비", "天時", ("占雨", "下雨", "雨澤"), "QuestionRain"),
    ("晴雨", "FairOrRain", "rain or shine", "청우", "天時", ("陰晴", "阴晴", "rain or shine"), "UseGodTopics-10"),
    ("國家", "State", "the state", "국가", None, ("国家", "國朝", "國事"), "UseGodTopics-11"),
    ("征戰", "Warfare", "warfare", "정전", None, ("征战", "征伐", "戰", "出師", "出征"), "UseGodTopics-12"),
    ("官事", "Office", "official matters", "관사", None, ("公事", "官用"), "UseGodOfficialPrivate"),
    ("詞訟", "Lawsuit", "a lawsuit", "사송", "官事", ("词讼", "訴訟", "官司", "官訟"), "UseGodTopics"),
    ("功名", "Career", "rank and fame", "공명", None, ("求名", "名", "工作", "事業", "事业", "職業", "job", "career"), "QuestionCareer"),
    ("考試", "Examination", "an examination", "고시", "功名", ("考试", "科舉", "科举", "文科", "鄉舉", "考學", "exam"), "UseGodTopics-4"),
    ("武試", "MilitaryExamination", "a military examination", "무시", "考試", ("武试", "武舉"), "UseGodTopics-4"),
    ("求官", "SeekingOffice", "seeking office", "구관", "功名", ("仕宦", "求仕", "仕途", "升遷", "升職", "升职", "求職", "求职", "promotion"), "UseGodTopics"),
    ("文書", "Documents", "documents", "문서", None, ("文书", "書信", "契約"), "QuestionDocuments"),
    ("葬地", "BurialSite", "burial site", "장지", None, ("墳墓", "坟墓", "葬", "營葬", "墓地"), "QuestionBurial"),
    ("出行", "Travel", "setting out on a journey", "출행", None, ("远行", "遠行", "出門"), "QuestionTravel"),
    ("行人", "Traveller", "someone away: will they return", "행인", None, ("歸期", "归期", "何日歸", "回歸"), "QuestionTraveller"),
    ("失物", "LostProperty", "lost property", "실물", None, ("失脫", "失脱", "失財", "盜賊", "被盜"), "UseGodTopics"),
    ("逃亡", "Flight", "flight (one's own)", "도망", None, ("逃走", "自逃", "潛逃"), "QuestionFugitive"),
    ("捕逃", "CatchingFugitive", "catching a fugitive", "포도", None, ("捕盜", "捉賊", "追逃"), "QuestionCatching"),
    ("訪友", "VisitingFriend", "visiting a friend", "방우", None, ("访友", "訪人", "見人"), "QuestionVisit"),
    ("交友", "Friendship", "friendship", "교우", None, ("交", "朋友", "結交"), "QuestionFriendship"),
    ("修道", "Cultivation", "spiritual cultivation", "수도", None, ("修行", "修真"), "QuestionCultivation"),
    ("禱祀", "Worship", "prayer and sacrifice", "도사", None, ("祈禱", "祭祀", "禱"), "QuestionWorship"),
    ("請託", "Petition", "petitions and favours", "청탁", None, ("请托", "求人", "干謁"), "QuestionPetition"),
    ("人事", "PersonMatter", "a matter concerning a person", "인사", None, ("占人", "某人"), "BuZhengUseGodShi"),
]

# Whom a question concerns (來者何人). (zh, id, en, ko)
SUBJECTS = [
    ("父母", "Parent", "a parent", "부모"),
    ("夫", "Husband", "the husband", "남편"),
    ("妻", "Wife", "the wife", "아내"),
    ("子", "Child", "a child", "자녀"),
    ("兄弟", "Sibling", "a brother or sister", "형제"),
    ("朋友", "Friend", "a friend", "붕우"),
    ("奴僕", "Servant", "a servant", "노복"),
    ("他人", "Stranger", "a stranger", "타인"),
]
# Other names of a subject: 卜筮正宗 用神分類定例第一 groups people by the line that stands for them (與我父母同輩 …),
# so each name below is read as the subject whose use-god the book gives it.
SUBJECT_ALIASES = {
    "父母": ("父", "母", "祖父母", "祖父", "祖母", "師", "師長", "先生", "家主", "主人", "伯叔", "伯父", "叔父", "伯", "叔",
             "姑", "姨", "嬸", "岳父", "岳母", "岳父母"),
    "夫": ("丈夫", "夫之兄弟", "夫兄", "夫弟"),
    "妻": ("妾", "妻妾", "嫂", "弟婦", "弟媳", "友人之妻"),
    "子": ("兒", "女", "兒女", "子女", "孫", "侄", "姪", "女婿", "門生", "學生"),
    "兄弟": ("兄", "弟", "姊妹", "姐妹", "姊", "妹", "姊妹丈", "妻之兄弟"),
    "朋友": ("友", "知交", "結盟", "同寅"),
    "奴僕": ("仆", "奴仆", "僕", "婢", "婢僕"),
    "他人": ("外人", "生人", "仇人", "敵人", "術士"),
}
# 卜筮正宗 chooses the use-god by whom the matter concerns, whatever the matter (用神分類定例第一, 世應論用神第二):
# (subject, target, passage). Every question takes them (PERSON_CHOICES below) beside its own choices; a question's
# own choice by the person stays (天玄賦's servant → 子孫 for illness, beside the book's 財 for servants).
PERSON_USE_GOD = [
    ("父母", ("relative", "Parents"), "BuZhengUseGodParents"),
    ("夫", ("relative", "Officer"), "BuZhengUseGodOfficer"),
    ("妻", ("relative", "Wealth"), "BuZhengUseGodWealth"),
    ("子", ("relative", "Offspring"), "BuZhengUseGodOffspring"),
    ("兄弟", ("relative", "Siblings"), "BuZhengUseGodSiblings"),
    ("朋友", ("relative", "Siblings"), "BuZhengUseGodSiblings"),
    ("奴僕", ("relative", "Wealth"), "BuZhengUseGodServants"),
    ("他人", ("role", "RoleYing"), "BuZhengUseGodYing"),
]

# The everyday words among the synonyms above (投資 股票 感情 戀愛 健康 工作 事業 升職 求職, love, job, health, exam …)
# are the project's own mapping onto the classics' questions, not the texts' words: named convention
# `ConventionEverydayQuestions` (passages.yaml).

# Questions that ask two narrower questions at once, and so read the rules of both (besides their tree parent):
# 晴雨 asks rain or shine together (天玄賦 天時章 「若占晴雨」), so 晴's rules and 雨's apply to it; its use-god is its
# parent 天時's (the water and the fire lines). skos:broader of both, a SKOS polyhierarchy.
ALSO_BROADER = {"晴雨": ("晴", "雨")}

# Schools where the works disagree on a question's use-god (id, zh, en, ko, work id or None, definition).
USE_GOD_SCHOOLS = [
    ("SchoolTianXuanWeather", "天玄賦水火主宰說", "Tianxuan Fu: water and fire rule the weather", "천현부 수화주재설",
     "WorkTianXuanFu", "天玄賦 天時章: 「若占晴雨，水火二爻乃一卦之主宰」 — rain is read from the water lines, fair "
     "weather from the fire lines (「六爻無水必無雨，六爻無火不開晴」)."),
    ("SchoolHuangJinCeWeather", "黃金策父財說", "Huangjin Ce: parents for rain, wealth for fair weather", "황금책 부재설",
     None, "Standard convention, not in the seeds: 黃金策 (劉基, in the 卜筮正宗 recension) 天時章 「當究父財，勿憑水火。"
     "妻財發動，八方咸仰晴光。父母興隆，四海盡沾雨澤」 — 父母 for rain, 妻財 for fair weather, and expressly not the water "
     "and fire lines."),
    ("SchoolRulerShi", "世為君說", "the 世 line is the ruler", "세위군설", "WorkTianXuanFu",
     "天玄賦 國家章: 「以本宮為國，世為君」."),
    ("SchoolRulerFifth", "五爻天子說", "the fifth line is the emperor", "오효천자설", "WorkTianXuanFu",
     "天玄賦 國家章, the other view it records: 「又云：五爻為天子」."),
    ("SchoolGeneralShi", "世為我將說", "the 世 line is our general", "세위아장설", "WorkTianXuanFu",
     "天玄賦 征戰章: 「以世為我將，應為彼帥」."),
    ("SchoolGeneralOffspring", "子孫為將說", "子孫 is our general", "자손위장설", "WorkTianXuanFu",
     "天玄賦 征戰章, the other view it records: 「又云：以子孫為我將，及先鋒」."),
]

# Schools of the reading where the works disagree on how a cast is read (id, zh, en, ko, work id, definition,
# default). The cast names one with --school (lyo:readingSchool); without it the default is read, the school that
# reads the development set's recorded outcomes best (`liuyao eval --school`, docs/reading.md §7; convention
# `ConventionReadingSchoolDefault`). The rules that differ carry the condition `reading-school` (rules/reading.ttl).
READING_SCHOOLS = [
    ("SchoolYiMaoReading", "易冒斷法", "Yi Mao's reading", "역모 판단법", "WorkYiMao",
     "易冒 (程良玉, Qing): a doubled use-god is read from its unharmed line (兩現章 「舍其有傷，取其無傷」); the single "
     "moving line is the only line that moves (獨發獨靜章).", True),
    ("SchoolBuShiZhengZong", "卜筮正宗斷法", "Bushi Zhengzong's reading", "복서정종 판단법", "WorkBuShiZhengZong",
     "卜筮正宗 (王洪緒, 1709): a doubled use-god is read from the line that holds the 世, is the month or day, is "
     "month-broken or void, in that order (第十七問 「天機盡洩於有病之間」); a still line the day clashes into motion "
     "counts as moving in telling the single moving line (第十五問).", False),
]

# The use-god of each question, one choice per reading the texts give (data for the state rules
# UseGodChoose / UseGodBy* in rules/cast-states.ttl; a narrower question without choices of its own takes its
# broader question's). target: ("relative", relative id) | ("role", role id) | ("position", 1–6) |
# ("element", zh). when: sex (男/女), about (a SUBJECTS name) or school (a USE_GOD_SCHOOLS id) the choice needs;
# "default": True marks the school taken when the cast names none. helper: the 輔 relative (火珠林 占官必用父母，
# 占財必用子孫). (id, question, target, passage id, when, helper)
_ILLNESS_SUBJECTS = [("Parent", "父母", "Parents"), ("Husband", "夫", "Officer"), ("Wife", "妻", "Wealth"),
                     ("Child", "子", "Offspring"), ("Sibling", "兄弟", "Siblings"), ("Friend", "朋友", "Siblings"),
                     ("Servant", "奴僕", "Offspring")]
_TRAVELLER_SUBJECTS = [("Parent", "父母", "Parents", "UseGodIllness"), ("Husband", "夫", "Officer", "UseGodIllness"),
                       ("Wife", "妻", "Wealth", "UseGodIllness"), ("Child", "子", "Offspring", "QuestionTravellerSon"),
                       ("Sibling", "兄弟", "Siblings", "UseGodIllness"), ("Friend", "朋友", "Siblings", "UseGodIllness"),
                       ("Servant", "奴僕", "Wealth", "UseGodTopics")]
USE_GOD_CHOICES = [
    ("Wealth", "求財", ("relative", "Wealth"), "UseGodTopics", {}, "Offspring"),
    ("Dealings", "營謀", ("relative", "Wealth"), "UseGodOfficialPrivate", {}, "Offspring"),
    ("House", "家宅", ("relative", "Wealth"), "UseGodTopics", {}, "Offspring"),
    ("Marriage", "婚姻", ("relative", "Wealth"), "UseGodTopics", {}, "Offspring"),
    ("MarriageMan", "婚姻", ("relative", "Wealth"), "UseGodTopics-3", {"sex": "男"}, "Offspring"),
    ("MarriageWoman", "婚姻", ("relative", "Officer"), "UseGodTopics-3", {"sex": "女"}, "Parents"),
    ("MarriageHusband", "婚姻", ("relative", "Officer"), "UseGodTopics-3", {"about": "夫"}, "Parents"),
    ("MarriageWife", "婚姻", ("relative", "Wealth"), "UseGodTopics-3", {"about": "妻"}, "Offspring"),
    ("Illness", "疾病", ("role", "RoleShi"), "QuestionIllnessPatient", {}, None),
    *[(f"Illness{sid}", "疾病", ("relative", rel), "UseGodIllness", {"about": zh}, None)
      for sid, zh, rel in _ILLNESS_SUBJECTS],
    ("Medicine", "醫藥", ("relative", "Offspring"), "UseGodTopics-13", {}, None),
    ("Haunting", "祟", ("relative", "Officer"), "UseGodTopics", {}, None),
    ("LifeDestiny", "身命", ("role", "RoleShi"), "UseGodTopics-6", {}, None),
    ("Self", "自身", ("role", "RoleShi"), "UseGodTopics-6", {}, None),
    ("Childbirth", "產育", ("relative", "Offspring"), "UseGodTopics-7", {}, None),
    ("FarmingSilkworms", "田蠶", ("relative", "Wealth"), "UseGodTopics-8", {}, None),
    ("WeatherWater", "天時", ("element", "水"), "UseGodTopics-10", {"school": "SchoolTianXuanWeather", "default": True}, None),
    ("WeatherFire", "天時", ("element", "火"), "UseGodTopics-10", {"school": "SchoolTianXuanWeather", "default": True}, None),
    ("WeatherParents", "天時", ("relative", "Parents"), "UseGodWeatherHuangJinCe", {"school": "SchoolHuangJinCeWeather"}, None),
    ("WeatherWealth", "天時", ("relative", "Wealth"), "UseGodWeatherHuangJinCe", {"school": "SchoolHuangJinCeWeather"}, None),
    ("FairFire", "晴", ("element", "火"), "QuestionFairFire", {"school": "SchoolTianXuanWeather", "default": True}, None),
    ("FairWealth", "晴", ("relative", "Wealth"), "UseGodWeatherHuangJinCe", {"school": "SchoolHuangJinCeWeather"}, None),
    ("RainWater", "雨", ("element", "水"), "QuestionRainWater", {"school": "SchoolTianXuanWeather", "default": True}, None),
    ("RainParents", "雨", ("relative", "Parents"), "UseGodWeatherHuangJinCe", {"school": "SchoolHuangJinCeWeather"}, None),
    ("StateShi", "國家", ("role", "RoleShi"), "UseGodTopics-11", {"school": "SchoolRulerShi", "default": True}, None),
    ("StateFifth", "國家", ("position", 5), "UseGodTopics-11", {"school": "SchoolRulerFifth"}, None),
    ("WarfareShi", "征戰", ("role", "RoleShi"), "UseGodTopics-12", {"school": "SchoolGeneralShi", "default": True}, None),
    ("WarfareOffspring", "征戰", ("relative", "Offspring"), "UseGodTopics-12", {"school": "SchoolGeneralOffspring"}, None),
    ("Office", "官事", ("relative", "Officer"), "UseGodOfficialPrivate", {}, "Parents"),
    ("Lawsuit", "詞訟", ("relative", "Officer"), "UseGodTopics", {}, "Parents"),
    ("Career", "功名", ("relative", "Officer"), "QuestionCareerGhost", {}, "Parents"),
    ("Examination", "考試", ("relative", "Parents"), "UseGodTopics-4", {}, None),
    ("MilitaryExamination", "武試", ("relative", "Officer"), "UseGodTopics-4", {}, None),
    ("SeekingOffice", "求官", ("relative", "Officer"), "UseGodTopics", {}, "Parents"),
    ("Documents", "文書", ("relative", "Parents"), "QuestionDocuments", {}, None),
    ("BurialSite", "葬地", ("role", "RoleShi"), "QuestionBurial", {}, None),
    ("Travel", "出行", ("role", "RoleShi"), "QuestionTravel", {}, None),
    ("Traveller", "行人", ("role", "RoleYing"), "QuestionTravel", {}, None),
    *[(f"Traveller{sid}", "行人", ("relative", rel), passage, {"about": zh}, None)
      for sid, zh, rel, passage in _TRAVELLER_SUBJECTS],
    ("LostProperty", "失物", ("relative", "Officer"), "UseGodTopics", {}, None),
    ("Flight", "逃亡", ("role", "RoleShi"), "QuestionOwnFlight", {}, None),
    ("VisitingFriend", "訪友", ("role", "RoleYing"), "QuestionVisit", {}, None),
    ("CatchingFugitive", "捕逃", ("role", "RoleYing"), "QuestionCatching", {}, None),
    ("Friendship", "交友", ("relative", "Siblings"), "QuestionFriendship", {}, None),
    ("Cultivation", "修道", ("role", "RoleShi"), "QuestionCultivation", {}, None),
    ("Worship", "禱祀", ("relative", "Officer"), "QuestionWorship", {}, None),
    ("Petition", "請託", ("relative", "Officer"), "QuestionPetition", {}, None),
    ("PersonMatter", "人事", ("role", "RoleShi"), "BuZhengUseGodShi", {}, None),
]
_SUBJECT_ID = {s[0]: s[1] for s in SUBJECTS}
# The choices by whom the matter concerns (PERSON_USE_GOD), one for all questions (question None): a question takes
# each one for which it has no choice of its own about that person (ontology/questions.py `choices`).
PERSON_CHOICES = [(f"About{_SUBJECT_ID[who]}", None, target, passage, {"about": who}, None)
                  for who, target, passage in PERSON_USE_GOD]

# The timing's unit by the question (卜筮正宗 月破論第九 「遠應年月，近應日時」): matters of a lifetime, a house, a
# grave, a rank, a harvest, a state or a marriage are far (a month); the rest are near (a day). A narrower question
# takes its broader one's. Named convention `ConventionHorizonByQuestion`; `--horizon` overrides.
FAR_QUESTIONS = ("身命", "家宅", "葬地", "功名", "田蠶", "國家", "征戰", "婚姻", "修道")
# Specificity of a choice's conditions: the most specific applicable choice wins (ties: all of them, as 天玄賦's
# water and fire lines together rule the weather). The user's own --use-god is above every choice.
CHOICE_SPECIFICITY = {"about": 4, "sex": 2, "school": 1}


# Kinds of a state that 易冒 enumerates (variants of one state; each rule names its kind).
STATE_VARIANTS = [  # (id, zh, en, ko)
    ("TombFate", "命墓", "fate tomb: the birth branch rides the ghost, entombed in the day", "명묘"),
    ("TombShi", "世墓", "self tomb: the 世 line holds the ghost, entombed in the day", "세묘"),
    ("TombChangeLine", "化爻墓", "changed-line tomb: 命/世/身 holding the ghost changes into its tomb", "화효묘"),
    ("TombGuaShen", "卦身墓", "hexagram-body tomb: the 卦身 holds the ghost, entombed in the day", "괘신묘"),
    ("TombShiShen", "世身墓", "body tomb: the 世身 holds the ghost, entombed in the day", "세신묘"),
    ("RescueWay1", "日月克而動生", "overcome by day or month, generated by a moving line", "일월극 동효생"),
    ("RescueWay2", "動克而變生", "overcome by a moving line, generated by its own change", "동효극 변효생"),
    ("RescueWay3", "變克而動生", "overcome by its own change, generated by a moving line", "변효극 동효생"),
    ("RescueWay4", "伏受日月克而飛動生", "hidden, overcome by day or month, generated by its flying or a moving line", "복신 일월극 비동생"),
    ("RescueWay5", "伏受飛動克而日月生", "hidden, overcome by its flying or a moving line, generated by day or month", "복신 비동극 일월생"),
]

# 神煞 (spirit-killers): which branches carry a named 神煞 for the cast's day / month / year.
# The seeds name them but (except 祿, 將星 and 天玄賦's 亡神) leave the tables to chapters not included;
# the rest are the standard tables of the later manuals (卜筮正宗, 增刪卜易), sourced as conventions in
# passages.yaml. Where a seed's table differs from the standard one, both are kept: the seed's is the
# default (no school), the other a named school (SHENSHA_SCHOOLS), never a silent choice.
# The four 三合 frames in the order 申子辰, 寅午戌, 巳酉丑, 亥卯未 key the day-branch tables.
SHENSHA_FRAMES = ["申子辰", "寅午戌", "巳酉丑", "亥卯未"]


def _by_frame(targets: str) -> dict[str, str]:
    return {b: t for frame, t in zip(SHENSHA_FRAMES, targets) for b in frame}


def _by_offset(offset: int) -> dict[str, str]:
    return {b: BRANCHES[(i + offset) % 12] for i, b in enumerate(BRANCHES)}


# basis: the pillar and the part of it that keys the table: day_stem | day_branch | month_branch | year_branch.
# (id, zh, en, ko, basis, table key → branches carrying it, school id or None, passage id)
SHENSHA = [
    ("HeavenlyNoble", "貴人", "heavenly noble (天乙貴人)", "천을귀인", "day_stem",
     {"甲": "丑未", "戊": "丑未", "庚": "丑未", "乙": "子申", "己": "子申", "丙": "亥酉", "丁": "亥酉",
      "壬": "卯巳", "癸": "卯巳", "辛": "午寅"}, None, "ShenShaHeavenlyNoble"),
    ("Emolument", "祿", "emolument (祿神)", "녹신", "day_stem",
     {"甲": "寅", "乙": "卯", "丙": "巳", "丁": "午", "戊": "巳", "己": "午", "庚": "申", "辛": "酉",
      "壬": "亥", "癸": "子"}, None, "ShenShaEmolument"),
    ("PostHorse", "驛馬", "post horse", "역마", "day_branch", _by_frame("寅申亥巳"), None, "ShenShaPostHorse"),
    ("SaltyPool", "咸池", "salty pool (peach blossom)", "함지", "day_branch", _by_frame("酉卯午子"), None,
     "ShenShaSaltyPool"),
    ("RobberyKiller", "劫殺", "robbery killer", "겁살", "day_branch", _by_frame("巳亥寅申"), None,
     "ShenShaRobberyKiller"),
    # 天玄賦 (seed 004): 亡神殺，正月從亥起順行 — by the month: 寅月亥, 卯月子 …
    ("LostSpirit", "亡神", "lost spirit", "망신", "month_branch", _by_offset(9), None, "ShenShaLostSpirit"),
    ("LostSpirit", "亡神", "lost spirit", "망신", "day_branch", _by_frame("亥巳申寅"), "SchoolTriadShenSha",
     "ShenShaLostSpirit-2"),
    ("GeneralStar", "將星", "general star", "장성", "day_branch", _by_frame("子午酉卯"), None, "ShenShaGeneralStar"),
    ("FloweryCanopy", "華蓋", "flowery canopy", "화개", "day_branch", _by_frame("辰戌丑未"), None,
     "ShenShaFloweryCanopy"),
    ("HeavenlyJoy", "天喜", "heavenly joy", "천희", "month_branch",
     {b: t for months, t in (("寅卯辰", "戌"), ("巳午未", "丑"), ("申酉戌", "辰"), ("亥子丑", "未")) for b in months},
     None, "ShenShaHeavenlyJoy"),
    ("MourningGate", "喪門", "mourning gate", "상문", "year_branch", _by_offset(2), None, "ShenShaMourningGate"),
    ("CondolingGuest", "弔客", "condoling guest", "조객", "year_branch", _by_offset(10), None,
     "ShenShaCondolingGuest"),
]
# Schools of 神煞 tables that differ from the default (id, zh, en, ko, definition).
SHENSHA_SCHOOLS = [
    ("SchoolTriadShenSha", "三合神煞說", "神煞 by the day branch's triple-combination frame", "삼합 신살설",
     "Standard convention of the later manuals (卜筮正宗, 增刪卜易; not in the seeds): 亡神 taken from the day "
     "branch's 三合 frame (申子辰 亥, 寅午戌 巳, 巳酉丑 申, 亥卯未 寅), where 天玄賦 counts it by the month (正月亥, forwards)."),
]


#: the works cited: work key -> (lyr individual, zh-Hant title, English title, Korean title)
WORKS = {
    "YiMao": ("WorkYiMao", "易冒", "Yi Mao", "역모"),
    "TianXuanFu": ("WorkTianXuanFu", "天玄賦", "Tianxuan Fu", "천현부"),
    "HuoZhuLin": ("WorkHuoZhuLin", "火珠林", "Huozhulin", "화주림"),
    "HuangJinCe": ("WorkHuangJinCe", "黃金策", "Huangjin Ce", "황금책"),
    "BuShiZhengZong": ("WorkBuShiZhengZong", "卜筮正宗", "Bushi Zhengzong", "복서정종"),
}
