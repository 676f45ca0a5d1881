//! Reading one named column of a CSV file with a header row.

use super::lines::decode;
use crate::error::InputError;
use std::io::Read;

/// Calls `on_field` with the value of `column` in every record of `reader` and the record's line
/// number. `on_progress` receives the bytes read, in batches.
pub fn for_each_field<E: From<InputError>>(
    reader: impl Read,
    name: &str,
    column: &str,
    lossy: bool,
    mut on_progress: impl FnMut(u64),
    mut on_field: impl FnMut(&str, u64) -> Result<(), E>,
) -> Result<(), E> {
    let mut csv = csv::ReaderBuilder::new().has_headers(true).from_reader(reader);
    let headers = csv.byte_headers().map_err(|error| csv_error(error, name))?.clone();
    let index = headers.iter().position(|header| header == column.as_bytes()).ok_or_else(|| {
        InputError::NoSuchColumn {
            name: name.to_owned(),
            column: column.to_owned(),
            available: headers.iter().map(|header| String::from_utf8_lossy(header).into_owned()).collect(),
        }
    })?;
    let mut record = csv::ByteRecord::new();
    let mut reported = 0u64;
    while csv.read_byte_record(&mut record).map_err(|error| csv_error(error, name))? {
        let line = record.position().map_or(0, csv::Position::line);
        let field = record.get(index).unwrap_or_default();
        on_field(&decode(field, name, line, lossy)?, line)?;
        let read = record.position().map_or(0, csv::Position::byte);
        if read - reported >= 1 << 20 {
            on_progress(read - reported);
            reported = read;
        }
    }
    on_progress(csv.position().byte().saturating_sub(reported));
    Ok(())
}

fn csv_error(error: csv::Error, name: &str) -> InputError {
    let line = error.position().map_or(0, csv::Position::line);
    match error.into_kind() {
        csv::ErrorKind::Io(source) => InputError::Read { name: name.to_owned(), source },
        kind => InputError::Malformed { name: name.to_owned(), line, message: describe(&kind) },
    }
}

fn describe(kind: &csv::ErrorKind) -> String {
    match kind {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("a record has {len} fields where the header has {expected_len}")
        }
        other => format!("invalid CSV: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(input: &[u8], column: &str, lossy: bool) -> Result<Vec<(String, u64)>, InputError> {
        let mut out = Vec::new();
        for_each_field(
            input,
            "in.csv",
            column,
            lossy,
            |_| {},
            |field, line| {
                out.push((field.to_owned(), line));
                Ok::<(), InputError>(())
            },
        )?;
        Ok(out)
    }

    #[test]
    fn reads_the_named_column_with_quoting() {
        let input = b"artist,title\nSolar Fields,Leaving Home\n\"Dday One\",\"Heavy, Migration\"\n";
        let out = fields(input, "title", false).expect("valid");
        assert_eq!(out, [("Leaving Home".into(), 2), ("Heavy, Migration".into(), 3)]);
    }

    #[test]
    fn errors_name_the_problem() {
        let missing = fields(b"artist,title\nx,y\n", "year", false).expect_err("no such column");
        assert_eq!(
            missing.to_string(),
            "in.csv: no column \"year\" in the CSV header (columns: artist, title)"
        );
        let ragged = fields(b"a,b\n1,2\n3\n", "a", false).expect_err("ragged");
        assert!(ragged.to_string().starts_with("in.csv:3: a record has 1 fields"), "{ragged}");
        let invalid = fields(b"a\nok\nb\xffd\n", "a", false).expect_err("invalid UTF-8");
        assert!(matches!(invalid, InputError::InvalidUtf8 { line: 3, byte: 1, .. }), "{invalid}");
        assert_eq!(fields(b"a\nb\xffd\n", "a", true).expect("lossy")[0].0, "b\u{FFFD}d");
    }
}
