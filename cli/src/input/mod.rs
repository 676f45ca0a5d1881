//! Reading keys from files or stdin: one per line, one CSV column, or one JSON Lines field.

mod csv_column;
mod jsonl;
mod lines;

pub use lines::for_each_line;

use crate::error::InputError;
use jsonl::{field_of, FieldValue};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

/// How keys are laid out in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// One key per line.
    Lines,
    /// The named column of a CSV file with a header row.
    CsvColumn(String),
    /// The named string field of one JSON object per line.
    JsonlField(String),
}

/// How many keys were read and how many inputs had none (empty lines, empty or missing fields).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Keys passed on.
    pub keys: u64,
    /// Lines or records skipped.
    pub skipped: u64,
}

/// The input files; none, or `-`, means stdin.
#[derive(Debug, Clone)]
pub struct Sources {
    paths: Vec<PathBuf>,
}

impl Sources {
    /// The given files, or stdin when there are none.
    pub fn new(paths: Vec<PathBuf>) -> Self {
        Self { paths }
    }

    /// The total size of the files, when every input is a file.
    pub fn size_hint(&self) -> Option<u64> {
        if self.paths.is_empty() {
            return None;
        }
        self.paths
            .iter()
            .map(|path| if is_stdin(path) { None } else { path.metadata().ok().map(|m| m.len()) })
            .sum()
    }

    /// Calls `on_key` with every non-empty key, in input order. `on_progress` receives bytes read.
    pub fn read<E: From<InputError>>(
        &self,
        format: &Format,
        lossy: bool,
        mut on_progress: impl FnMut(u64),
        mut on_key: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<Counts, E> {
        let mut counts = Counts::default();
        let stdin = [PathBuf::from("-")];
        let paths = if self.paths.is_empty() { &stdin[..] } else { &self.paths[..] };
        for path in paths {
            let (name, reader) = open(path)?;
            let mut take = |key: &str| -> Result<(), E> {
                if key.is_empty() {
                    counts.skipped += 1;
                    return Ok(());
                }
                counts.keys += 1;
                on_key(key)
            };
            match format {
                Format::Lines => for_each_line(reader, &name, lossy, &mut on_progress, |line, _| take(line))?,
                Format::CsvColumn(column) => {
                    csv_column::for_each_field(reader, &name, column, lossy, &mut on_progress, |field, _| {
                        take(field)
                    })?
                }
                Format::JsonlField(field) => {
                    for_each_line(reader, &name, lossy, &mut on_progress, |line, number| {
                        if line.trim().is_empty() {
                            return take("");
                        }
                        match field_of(line, field, &name, number)? {
                            FieldValue::Text(text) => take(&text),
                            FieldValue::Missing => take(""),
                            FieldValue::Other(kind) => Err(InputError::Malformed {
                                name: name.clone(),
                                line: number,
                                message: format!("field {field:?} is {kind}, not a string"),
                            }
                            .into()),
                        }
                    })?
                }
            }
        }
        Ok(counts)
    }
}

fn is_stdin(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

fn open(path: &std::path::Path) -> Result<(String, Box<dyn BufRead>), InputError> {
    if is_stdin(path) {
        return Ok(("<stdin>".to_owned(), Box::new(BufReader::with_capacity(1 << 18, std::io::stdin()))));
    }
    let file = File::open(path).map_err(|source| InputError::Open { path: path.to_owned(), source })?;
    Ok((path.display().to_string(), Box::new(BufReader::with_capacity(1 << 18, file))))
}
