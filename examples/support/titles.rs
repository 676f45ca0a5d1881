//! Album titles and artist names skewed the way real catalogues are: a hot "Greatest Hits",
//! many titles starting with "The" or "Live", case variants of one title, other scripts and
//! compatibility forms. Deterministic, so every run sees the same catalogue. Shared by the music
//! example and the sharding benchmarks.

pub const ADJECTIVES: &[&str] = &[
    "Amber", "Purple", "Quiet", "Red", "Blue", "Silent", "Electric", "Golden", "Broken", "Wild", "Midnight",
    "Heavy", "Distant", "Velvet", "Neon", "Frozen", "Hidden", "Lonely", "Burning", "Crystal", "Paper",
    "Northern", "Secret", "Endless",
];
pub const NOUNS: &[&str] = &[
    "Home",
    "River",
    "Garden",
    "Machine",
    "Dreams",
    "Horizon",
    "Migration",
    "Echoes",
    "Island",
    "Fire",
    "Shadows",
    "Satellite",
    "Ocean",
    "Summer",
    "Harbour",
    "Mirror",
    "Highway",
    "Letters",
    "Kingdom",
    "Signals",
];
pub const VERBS: &[&str] =
    &["Leaving", "Chasing", "Waiting for", "Dancing in", "Falling into", "Walking", "Finding"];
pub const CITIES: &[&str] = &["Florence", "Tokyo", "Berlin", "Montréal", "São Paulo", "Reykjavík", "Chicago"];
pub const OTHER_SCRIPTS: &[&str] = &[
    "Голос",
    "Кино",
    "Сердце",
    "夜に駆ける",
    "東京",
    "花",
    "風の谷",
    "사랑",
    "Σιωπή",
    "Ωκεανός",
    "حب",
    "שלום",
];
pub const ODDITIES: &[&str] = &[
    "Déjà Vu",
    "Café Society",
    "Ｇｏｏｄ Ｍｏｒｎｉｎｇ",
    "Ænima",
    "İstanbul",
    "Straße",
    "ΟΔΟΣ",
    "🎸 Riffs",
];
pub const FIRST_NAMES: &[&str] =
    &["Anna", "Björk", "Carlos", "Dana", "Emil", "Fatima", "Goro", "Hana", "Ivan", "June"];
pub const LAST_NAMES: &[&str] =
    &["Fields", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Kowalski", "Haddad", "Silva"];

/// A small deterministic generator.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, bound: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % bound as u64) as usize
    }

    pub fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// A title, skewed the way real catalogues are.
pub fn title(random: &mut Lcg) -> String {
    match random.below(100) {
        0..=4 => "Greatest Hits".into(),
        5 => "Demo".into(),
        6..=19 => format!("The {} {}", random.pick(ADJECTIVES), random.pick(NOUNS)),
        20..=26 => match random.below(3) {
            0 => format!("Live in {}", random.pick(CITIES)),
            1 => format!("Live at the {}", random.pick(NOUNS)),
            _ => "Live".into(),
        },
        27..=32 => format!("{}{}", random.pick(OTHER_SCRIPTS), if random.below(3) == 0 { " II" } else { "" }),
        33..=35 => random.pick(&["Leaving Home", "leaving home", "Leaving home", "LEAVING HOME"]).into(),
        36..=39 => random.pick(ODDITIES).into(),
        40..=59 => format!("{} {}", random.pick(VERBS), random.pick(NOUNS)),
        60..=69 => format!("{} of {}", random.pick(NOUNS), random.pick(NOUNS)),
        70..=74 => format!("{} {}", random.below(2_000), random.pick(NOUNS)),
        _ => format!("{} {}", random.pick(ADJECTIVES), random.pick(NOUNS)),
    }
}

/// An artist name: a first and a last name.
pub fn artist(random: &mut Lcg) -> String {
    format!("{} {}", random.pick(FIRST_NAMES), random.pick(LAST_NAMES))
}
