//! Splitting an input into lines and decoding each as UTF-8.

use crate::error::InputError;
use std::borrow::Cow;
use std::io::BufRead;

/// Calls `on_line` with every line of `reader` (without its `\n` or `\r\n`) and its line
/// number, counted from one. Invalid UTF-8 is an error naming the line, or replaced with U+FFFD
/// when `lossy`. `on_progress` receives the bytes read, in batches.
pub fn for_each_line<E: From<InputError>>(
    mut reader: impl BufRead,
    name: &str,
    lossy: bool,
    mut on_progress: impl FnMut(u64),
    mut on_line: impl FnMut(&str, u64) -> Result<(), E>,
) -> Result<(), E> {
    let mut buffer = Vec::with_capacity(256);
    let mut line_number = 0;
    let mut unreported = 0u64;
    loop {
        buffer.clear();
        let read = reader
            .read_until(b'\n', &mut buffer)
            .map_err(|source| InputError::Read { name: name.to_owned(), source })?;
        if read == 0 {
            break;
        }
        line_number += 1;
        unreported += read as u64;
        if unreported >= 1 << 20 {
            on_progress(unreported);
            unreported = 0;
        }
        let line = decode(trim_line_end(&buffer), name, line_number, lossy)?;
        on_line(&line, line_number)?;
    }
    on_progress(unreported);
    Ok(())
}

/// The line without its trailing `\n` or `\r\n`.
pub fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `bytes` as text: borrowed when valid, replaced when `lossy`, else an error naming the line.
pub fn decode<'a>(bytes: &'a [u8], name: &str, line: u64, lossy: bool) -> Result<Cow<'a, str>, InputError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(Cow::Borrowed(text)),
        Err(_) if lossy => Ok(String::from_utf8_lossy(bytes)),
        Err(error) => Err(InputError::InvalidUtf8 { name: name.to_owned(), line, byte: error.valid_up_to() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], lossy: bool) -> Result<Vec<(String, u64)>, InputError> {
        let mut out = Vec::new();
        for_each_line(
            input,
            "test",
            lossy,
            |_| {},
            |line, number| {
                out.push((line.to_owned(), number));
                Ok::<(), InputError>(())
            },
        )?;
        Ok(out)
    }

    #[test]
    fn splits_lines_of_both_endings() {
        let out = lines(b"a\r\nb\n\nc", false).expect("valid");
        assert_eq!(out, [("a".into(), 1), ("b".into(), 2), ("".into(), 3), ("c".into(), 4)]);
        assert!(lines(b"", false).expect("valid").is_empty());
    }

    #[test]
    fn invalid_utf8_names_the_line_unless_lossy() {
        let error = lines(b"ok\nbad \xff here\n", false).expect_err("invalid");
        assert!(matches!(error, InputError::InvalidUtf8 { line: 2, byte: 4, .. }), "{error}");
        assert!(error.to_string().starts_with("test:2: not valid UTF-8"), "{error}");
        let out = lines(b"ok\nbad \xff here\n", true).expect("lossy");
        assert_eq!(out[1].0, "bad \u{FFFD} here");
    }
}
