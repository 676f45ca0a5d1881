//! The records: 10,000 of them, generated deterministically.
//!
//! Titles mix ASCII with combining and precomposed accents, CJK, emoji, full-width letters, 'İ',
//! 'ß', final sigma, control characters and the key separators; many records share a title (a
//! hot "Greatest Hits" above all), and some titles differ only in case ("Leaving Home",
//! "leaving home"). Every record has its own base key.

use super::model::E2eRecord;
use std::collections::HashSet;

pub const RECORDS: usize = 10_000;

const OPENINGS: &[&str] = &[
    "The",
    "the",
    "THE",
    "Live",
    "live",
    "Leaving",
    "A",
    "Agartha",
    "Barstow",
    "Blue",
    "Can",
    "Cyan",
    "Dreams",
    "Echo",
    "Feud",
    "Grave",
    "Heavy",
    "I",
    "Into",
    "Kannaval",
    "Midnight",
    "Mir",
    "Notice",
    "Ocean",
    "Platforms",
    "Quiet",
    "Rituals",
    "Skylten",
    "Space",
    "Surtr",
    "Tonttujen",
    "Under",
    "Walking",
    "Young",
    "Zero",
    "Élan",
    "E\u{301}lan",
    "Ｌｉｖｅ",
    "Ｔｈｅ",
    "İstanbul",
    "Straße",
    "STRASSE",
    "ΟΔΟΣ",
    "Σίσυφος",
    "Голос",
    "Ярость",
    "東京",
    "日本の夏",
    "🎸",
    "😀 Smile",
    "2",
    "99",
    "#1",
    "$ign",
    "ﬁrst",
    "Ångström",
];

const ENDINGS: &[&str] = &[
    "Home",
    "home",
    "Migration",
    "Cadet",
    "Hits",
    "in Florence",
    "of Love",
    "Night",
    "Touch",
    "λόγος",
    "ΛΌΓΟΣ",
    "夜",
    "🌙",
    "Ｔｏｋｙｏ",
    "#2",
    "a$b",
    "Ω",
    "café",
    "cafe\u{301}",
    "Ctrl\u{1}Char",
    "ǅungla",
    "Straße",
    "",
];

/// A small deterministic generator, so a failure can be replayed.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

/// Distinct titles, most popular first.
fn title_pool(random: &mut Lcg) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut pool = vec!["Greatest Hits".to_owned(), "Leaving Home".to_owned(), "leaving home".to_owned()];
    pool.extend(["LEAVING HOME", "Leaving home", "Ｌｅａｖｉｎｇ Ｈｏｍｅ"].map(String::from));
    seen.extend(pool.iter().cloned());
    while pool.len() < 3_000 {
        let opening = OPENINGS[random.below(OPENINGS.len() as u64) as usize];
        let ending = ENDINGS[random.below(ENDINGS.len() as u64) as usize];
        let mut title = if ending.is_empty() { opening.to_owned() } else { format!("{opening} {ending}") };
        if random.below(3) == 0 {
            title.push_str(&format!(" {}", random.below(40)));
        }
        if seen.insert(title.clone()) {
            pool.push(title);
        }
    }
    pool
}

/// 10,000 records with skewed, repeated titles and unique base keys.
pub fn records(random: &mut Lcg) -> Vec<E2eRecord> {
    let pool = title_pool(random);
    let mut keys = HashSet::new();
    (0..RECORDS as u32)
        .map(|n| {
            let title = match random.below(100) {
                0..=2 => pool[0].clone(),
                3..=5 => pool[1 + random.below(5) as usize].clone(),
                _ => {
                    // Cubing a uniform draw favours the start of the pool: a long tail of rare
                    // titles and a head of frequent ones.
                    let u = random.below(1_000_000) as f64 / 1_000_000.0;
                    pool[(u * u * u * pool.len() as f64) as usize].clone()
                }
            };
            let mut artist = random.below(900);
            while !keys.insert((artist, title.clone())) {
                artist += 1;
            }
            E2eRecord { artist: format!("Artist {artist:03}"), title, n }
        })
        .collect()
}
