#!/usr/bin/env python3
"""Writes a deterministic file of album titles, one per line, shaped like a large music catalogue.

The shape the benchmark needs (and what it imitates of a real catalogue of ~5.5M releases with
~3.3M distinct titles):

- duplicates with a heavy tail: a few dozen very hot titles ("Greatest Hits" thousands of
  times, "Demo", "Live", ...), then distinct titles whose repeat counts follow a truncated
  power law (P(k) ~ k^-2.65, k <= 2000): most titles appear once, a few appear hundreds of times;
- one title written several ways (as entered, lowercase, UPPERCASE, fullwidth, decomposed
  accents) so that normalization, not the raw bytes, decides what is equal;
- mostly English and other Latin-script titles (with accents), plus CJK, Cyrillic, Greek,
  Hangul, Arabic, Hebrew, Thai, emoji and compatibility characters (ligatures, fullwidth,
  superscripts) that NFKD rewrites;
- 1 to 80 characters, no tabs, no line breaks, no leading or trailing spaces.

Only the standard library is used; the same seed and line count give the same bytes.

    python3 generate.py --lines 5500000 --seed 42 --output target/bench-boundaries/titles.txt
"""

import argparse
import bisect
import itertools
import os
import random
import sys
import unicodedata

MAX_CHARS = 80
TAIL_EXPONENT = 2.65
TAIL_MAX_REPEATS = 2000

# Hot titles with their repeat counts in 5.5M lines: the head of the distribution, hand-picked.
HOT_TITLES = [
    ("Greatest Hits", 4600),
    ("Demo", 3100),
    ("Live", 2400),
    ("Christmas", 1500),
    ("The Very Best Of", 1300),
    ("Untitled", 1250),
    ("Hits", 1100),
    ("Promo", 1000),
    ("Gold", 950),
    ("Unplugged", 800),
    ("Love Songs", 760),
    ("Remixes", 720),
    ("Best Of", 700),
    ("Home", 640),
    ("Forever", 600),
    ("Singles", 560),
    ("Rarities", 520),
    ("Live at the BBC", 480),
    ("The Collection", 460),
    ("Love", 440),
    ("Essential", 420),
    ("20 Golden Greats", 400),
    ("Anthology", 380),
    ("Instrumentals", 360),
    ("Noël", 340),
    ("Lullabies", 320),
    ("ベスト", 300),
    ("精選", 290),
    ("Лучшее", 280),
    ("Greatest Hits, Volume 2", 270),
    ("Sampler", 260),
    ("Mixtape", 250),
    ("Ave Maria", 240),
    ("Café del Mar", 230),
    ("Symphony No. 9", 220),
    ("Золотая коллекция", 210),
    ("Best of the Best", 200),
    ("S/T", 190),
    ("Echoes", 180),
    ("1", 170),
    ("X", 160),
    ("愛", 150),
    ("♥", 140),
    ("Volume One", 130),
    ("Über Alles", 120),
]

ENGLISH = """
a all alone always american angel angels another any around away baby back bad ballad
beautiful before best better beyond big bird bitter black blind blood blue body bones
born boy boys breath bright broken brother burning call can't change child children city
close cold come coming country crazy cry cyan dance dancing dark darkness day days dead
dear death deep desire devil different down dream dreams drive dust earth east easy
echo electric empty end endless everything eyes face fall falling far fear feel feeling
fire first flowers fly for forever free friends from garden get ghost girl girls give
glass go god going gold golden gone good goodbye got gravity green grey half hand hands
happy hard heart hearts heat heaven heavy hell here high highway hold home hope horizon
hot house how human i i'm ice in inside into island it just keep kid kids king kiss
lady land last late left let life light lights like line little live lonely long lost
love lovers low machine made magic make man memories memory midnight mind mirror miss
money moon more morning mother mountain music my name never new next night no north not
nothing now ocean of off old on one only open other out over paradise part people
perfect place play please power pretty queen rain red remember rest ride right river road
rock rocket roll room rose run running sad same say sea second secret see shadow shadows
shine side silence silver sing sky slow small smoke snow so some someone something song
songs soul sound south space spirit star stars stay still stone stop storm story street
strange summer sun sunday sunshine sweet take tears tell that the there these thing think
this through time to together tomorrow tonight touch town train true turn two under up
violet wait waiting walk walking wall war water wave way we west what when where white
why wild wind window winter wish with without woman world yellow yesterday you young your
""".split()

# Other Latin-script languages, accents included (some in decomposed form after variants).
LATIN_OTHER = """
amour été fête cœur rêve lumière noël soleil chanson étoile forêt garçon déjà vu café
liebe träume übermut größe schön grün märchen stille nacht fröhliche weihnachten müde
canción corazón niño mañana sueño música fantasía señor alegría noche luna vida
saudade coração ação lição não mãe paixão mar sol
jouluyö tonttujen kesä syksy sydän tähti yö lumi
skylten hjärta sjön älskar vår höst ögon
miłość serce żółty gwiazda łzy noc dzień
kalbim gönül İstanbul ılık güneş şarkı ayrılık
láska srdce hvězda píseň čas země růže
dragoste inimă ţară
""".split()

CYRILLIC = """
голос любовь ночь песни город время жизнь небо сердце мечта солнце зима лето весна
звезда дорога музыка дом мама друг война мир память снег огонь вода ветер море
пісня кохання серце дім ніч зоря
""".split()

GREEK = "αγάπη ΟΔΥΣΣΕΑΣ ΚΑΡΔΙΑ θάλασσα ΝΥΧΤΑ Ήλιος όνειρα ΤΡΑΓΟΥΔΙΑ μουσική ΈΡΩΤΑΣ".split()

JAPANESE = """
夏の終わり 東京 桜 さくら 恋 愛してる ありがとう 星空 ひかり 夢 青春 ラブソング さよなら
魔法少女 風吹けば 海 空 雨 心 君に 僕ら トキメキ メモリーズ カラフル 花火 約束 未来
""".split()

CHINESE = """
學 舒 进 潮 向 妳 陳 月亮 愛情 時光 朋友 故事 春天 回憶 天空 我們 夜曲 傳奇 紅豆 新歌
""".split()

KOREAN = "사랑 봄날 우리 너의 마음 그리움 별 하늘 이별 노래 첫눈 기억".split()

ARABIC_HEBREW_THAI = "حبيبي سلام نور ليل שלום אהבה לילה ความรัก คิดถึง".split()

EMOJI = ["🍅", "🔥", "❤️", "🌙", "✨", "🎄", "🌊", "💔", "🎸", "🌈", "⭐", "🐍"]

# Compatibility characters NFKD rewrites (ligatures, superscripts, roman numerals, fractions).
COMPAT = ["ﬁ", "ﬂ", "²", "³", "Ⅱ", "Ⅲ", "½", "№", "™", "ｶ", "㍿", "℃"]

SUFFIXES = [
    " EP", " (Live)", " (Remastered)", " (Deluxe Edition)", " (Demo)", " [Remixes]",
    " (Acoustic)", " (Radio Edit)", " - Single", ": The Remixes", " (Instrumental)",
    " (Original Motion Picture Soundtrack)", " (Bonus Track Version)", " (Expanded Edition)",
]
CITIES = ["Florence", "Tokyo", "Berlin", "Montreux", "London", "Helsinki", "Moscow", "Paris",
          "São Paulo", "Reykjavík", "Kraków", "Zürich", "New York", "Budokan"]
MUSICAL_KEYS = ["C", "C♯", "D", "E♭", "E", "F", "F♯", "G", "A♭", "A", "B♭", "B"]


def fullwidth(text):
    """ASCII letters and digits as their fullwidth forms (NFKD maps them back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


class Titles:
    """Draws titles; every choice comes from one seeded generator."""

    def __init__(self, rng):
        self.rng = rng

    def words(self, vocabulary, low, high):
        return [self.rng.choice(vocabulary) for _ in range(self.rng.randint(low, high))]

    def cased(self, words):
        style = self.rng.random()
        text = " ".join(words)
        if style < 0.6:
            return " ".join(w[:1].upper() + w[1:] for w in words)
        if style < 0.8:
            return text[:1].upper() + text[1:]
        if style < 0.93:
            return text
        return text.upper()

    def english(self):
        r = self.rng.random()
        if r < 0.10:
            title = "The " + self.cased(self.words(ENGLISH, 1, 4))
        elif r < 0.16:
            title = f"Live in {self.rng.choice(CITIES)}"
            if self.rng.random() < 0.7:
                title += f" {self.rng.randint(1960, 2025)}"
            if self.rng.random() < 0.5:
                title += " " + self.cased(self.words(ENGLISH, 1, 3))
        elif r < 0.20:
            title = f"{self.rng.randint(1, 2025)} " + self.cased(self.words(ENGLISH, 1, 3))
        elif r < 0.24:
            title = self.cased(self.words(ENGLISH, 1, 3)) + " / " + self.cased(self.words(ENGLISH, 1, 3))
        elif r < 0.27:
            mode = self.rng.choice(["major", "minor"])
            title = (f"Symphony No. {self.rng.randint(1, 104)} in {self.rng.choice(MUSICAL_KEYS)} {mode}, "
                     f"Op. {self.rng.randint(1, 140)}")
            if self.rng.random() < 0.5:
                title += ": " + self.cased(self.words(ENGLISH, 2, 8))
        elif r < 0.30:
            # Long titles, up to the 80-character cut.
            title = self.cased(self.words(ENGLISH, 8, 18))
        else:
            title = self.cased(self.words(ENGLISH, 1, 5))
        return title

    def latin_other(self):
        title = self.cased(self.words(LATIN_OTHER + ENGLISH[:40], 1, 4))
        if self.rng.random() < 0.2:
            title = title.upper()
        return title

    def non_latin(self):
        r = self.rng.random()
        if r < 0.30:
            return self.cased(self.words(CYRILLIC, 1, 4))
        if r < 0.55:
            return "".join(self.words(JAPANESE, 1, 3))
        if r < 0.72:
            return "".join(self.words(CHINESE, 1, 4))
        if r < 0.82:
            return " ".join(self.words(KOREAN, 1, 3))
        if r < 0.90:
            return " ".join(self.words(GREEK, 1, 3))
        return " ".join(self.words(ARABIC_HEBREW_THAI, 1, 3))

    def title(self):
        r = self.rng.random()
        if r < 0.78:
            title = self.english()
        elif r < 0.88:
            title = self.latin_other()
        elif r < 0.985:
            title = self.non_latin()
        else:
            title = self.rng.choice(EMOJI) + " " + self.english()
        extra = self.rng.random()
        if extra < 0.12:
            title += self.rng.choice(SUFFIXES)
        elif extra < 0.16:
            title += f", Vol. {self.rng.randint(1, 30)}"
        elif extra < 0.18:
            title += " " + self.rng.choice(EMOJI)
        elif extra < 0.20:
            title += " " + self.rng.choice(COMPAT)
        elif extra < 0.21:
            title = self.rng.choice(COMPAT) + title
        return clip(title)

    def variant(self, title):
        """How one release writes `title`; all but the verbatim one normalize to the same key
        as long as NFKD(lower) of the variant equals NFKD(lower) of the title."""
        r = self.rng.random()
        if r < 0.90:
            return title
        if r < 0.94:
            return title.lower()
        if r < 0.97:
            return clip(title.upper())
        if r < 0.985:
            return clip(unicodedata.normalize("NFD", title))
        return fullwidth(title)


def clip(title):
    title = title[:MAX_CHARS].strip()
    return title if title else "?"


def tail_repeats(rng_random):
    """A sampler of repeat counts k in 1..TAIL_MAX_REPEATS with P(k) ~ k^-TAIL_EXPONENT."""
    weights = [k ** -TAIL_EXPONENT for k in range(1, TAIL_MAX_REPEATS + 1)]
    cumulative = list(itertools.accumulate(weights))
    total = cumulative[-1]
    return lambda: bisect.bisect_left(cumulative, rng_random() * total) + 1


def generate(lines, seed):
    rng = random.Random(seed)
    titles = Titles(rng)
    repeats = tail_repeats(rng.random)
    occurrences = []
    for title, count in HOT_TITLES:
        # The counts are for 5.5M lines; smaller or larger files get proportional heads.
        count = max(1, round(count * lines / 5_500_000))
        occurrences.extend(titles.variant(title) for _ in range(min(count, lines - len(occurrences))))
    # dict, not set: insertion order keeps the output independent of string hash randomization.
    seen = dict.fromkeys(title for title, _ in HOT_TITLES)
    while len(occurrences) < lines:
        title = titles.title()
        if title in seen:
            continue
        seen[title] = None
        count = min(repeats(), lines - len(occurrences))
        occurrences.extend(titles.variant(title) for _ in range(count))
    rng.shuffle(occurrences)
    return occurrences, len(seen)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=5_500_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    occurrences, distinct = generate(args.lines, args.seed)
    temporary = args.output + ".partial"
    with open(temporary, "w", encoding="utf-8", newline="\n") as out:
        for start in range(0, len(occurrences), 100_000):
            out.write("\n".join(occurrences[start:start + 100_000]))
            out.write("\n")
    os.replace(temporary, args.output)
    print(f"wrote {len(occurrences)} lines ({distinct} distinct titles before normalization, "
          f"{os.path.getsize(args.output)} bytes) to {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
