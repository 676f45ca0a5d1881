//! Checks of argument values, run while the arguments are parsed: a bad table or index name,
//! endpoint or input file is bad usage (exit code 2, with a message naming the flag) before
//! anything is read or any request is sent.

use clap::builder::{OsStringValueParser, TypedValueParser};
use std::fs::File;
use std::net::Ipv6Addr;
use std::path::PathBuf;

/// A DynamoDB table name: 3 to 255 characters of `a-z A-Z 0-9 _ - .`.
pub fn table_name(value: &str) -> Result<String, String> {
    dynamodb_name("a table name", value)
}

/// A DynamoDB index name: 3 to 255 characters of `a-z A-Z 0-9 _ - .`.
pub fn index_name(value: &str) -> Result<String, String> {
    dynamodb_name("an index name", value)
}

fn dynamodb_name(what: &str, value: &str) -> Result<String, String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    let problem = if value.is_empty() {
        "it is empty".to_owned()
    } else if let Some(other) = value.chars().find(|&c| !allowed(c)) {
        format!("it contains {other:?}")
    } else if !(3..=255).contains(&value.len()) {
        format!("it has {} characters", value.len())
    } else {
        return Ok(value.to_owned());
    };
    Err(format!("{what} is 3 to 255 characters of a-z, A-Z, 0-9, _, - and .; {problem}"))
}

/// A DynamoDB endpoint: an `http://` or `https://` URL with a host, and optionally a port
/// (1 to 65535) and a path.
pub fn endpoint(value: &str) -> Result<String, String> {
    match endpoint_problem(value) {
        None => Ok(value.to_owned()),
        Some(problem) => Err(format!(
            "{problem}; an endpoint is an http:// or https:// URL with a host, such as http://127.0.0.1:8000"
        )),
    }
}

fn endpoint_problem(value: &str) -> Option<String> {
    if value.is_empty() {
        return Some("it is empty".to_owned());
    }
    if let Some(space) = value.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Some(format!("it contains {space:?}"));
    }
    let Some((scheme, rest)) = value.split_once("://") else {
        return Some("it has no scheme".to_owned());
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Some(format!("the scheme {scheme:?} is not http or https"));
    }
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if authority.contains('@') {
        return Some("it holds a user name; credentials come from the AWS configuration".to_owned());
    }
    let bracketed = authority.starts_with('[');
    let (host, port) = match authority.strip_prefix('[') {
        Some(bracketed) => {
            let Some((address, after)) = bracketed.split_once(']') else {
                return Some("its IPv6 address has no closing ]".to_owned());
            };
            if address.parse::<Ipv6Addr>().is_err() {
                return Some(format!("{address:?} is not an IPv6 address"));
            }
            match after.strip_prefix(':') {
                Some(port) => (address, Some(port)),
                None if after.is_empty() => (address, None),
                None => return Some(format!("{after:?} follows the IPv6 address")),
            }
        }
        None => match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    if host.is_empty() {
        return Some("it has no host".to_owned());
    }
    let host_character = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    if let Some(other) = host.chars().find(|&c| !bracketed && !host_character(c)) {
        return Some(format!("its host contains {other:?}"));
    }
    match port {
        Some(port)
            if !port.bytes().all(|b| b.is_ascii_digit()) || !matches!(port.parse(), Ok(1..=u16::MAX)) =>
        {
            Some(format!("the port {port:?} is not a number from 1 to 65535"))
        }
        _ => None,
    }
}

/// An input file of keys: `-` for stdin, or a readable file or pipe (not a directory).
pub fn key_file() -> impl TypedValueParser<Value = PathBuf> {
    OsStringValueParser::new().try_map(|value| {
        let path = PathBuf::from(value);
        if path.as_os_str() == "-" {
            Ok(path)
        } else {
            readable_file(path, "cannot open")
        }
    })
}

/// A boundaries file: a readable file or pipe (stdin holds the keys to route).
pub fn boundaries_file() -> impl TypedValueParser<Value = PathBuf> {
    OsStringValueParser::new().try_map(|value| {
        let path = PathBuf::from(value);
        if path.as_os_str() == "-" {
            return Err("stdin (-) holds the keys to route; give the boundaries as a file".to_owned());
        }
        readable_file(path, "cannot read the boundaries file")
    })
}

/// `path` when it is a regular file that opens for reading, or a pipe or character device
/// (`<(zcat keys.gz)`, `/dev/stdin`), which are not opened here: that would consume them.
fn readable_file(path: PathBuf, cannot: &str) -> Result<PathBuf, String> {
    let shown = path.display();
    let metadata = std::fs::metadata(&path).map_err(|error| format!("{cannot} {shown}: {error}"))?;
    let kind = metadata.file_type();
    if kind.is_dir() {
        return Err(format!("{shown} is a directory, not a file"));
    }
    if kind.is_file() {
        File::open(&path).map_err(|error| format!("{cannot} {shown}: {error}"))?;
        return Ok(path);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() || kind.is_char_device() {
            return Ok(path);
        }
    }
    Err(format!("{shown} is not a regular file or a pipe"))
}

/// A positive scale factor.
pub fn scale(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(factor) if factor.is_finite() && factor > 0.0 => Ok(factor),
        _ => Err(format!("a scale is a positive number such as 0.1; got {value:?}")),
    }
}

/// Capacity units per second: a positive number.
pub fn units(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(units) if units.is_finite() && units > 0.0 => Ok(units),
        _ => Err(format!("capacity units per second are a positive number such as 1000; got {value:?}")),
    }
}

/// `--table-limit TABLE[/INDEX]=KIND:write=N[,read=N]`.
#[derive(Debug, Clone, PartialEq)]
pub struct TableLimitArg {
    /// The table.
    pub table: String,
    /// The index, when the limit is an index's.
    pub index: Option<String>,
    /// The limit.
    pub limit: dynashard_local::emulator::TableLimit,
}

/// Reads `TABLE[/INDEX]=KIND:write=N[,read=N]`.
pub fn table_limit(value: &str) -> Result<TableLimitArg, String> {
    use dynashard_local::emulator::TableLimit;
    let usage = "a table limit is TABLE[/INDEX]=KIND:write=N[,read=N] with KIND provisioned, on-demand-max or account";
    let (resource, spec) = value.split_once('=').ok_or_else(|| format!("{usage}; got {value:?}"))?;
    let (table, index) = match resource.split_once('/') {
        Some((table, index)) => (table_name(table)?, Some(index_name(index)?)),
        None => (table_name(resource)?, None),
    };
    let (kind, rates) = spec.split_once(':').ok_or_else(|| format!("{usage}; got {value:?}"))?;
    let mut limit = match kind {
        "provisioned" => TableLimit::provisioned(),
        "on-demand-max" => TableLimit::on_demand_maximum(),
        "account" => TableLimit::account_quota(),
        other => return Err(format!("{usage}; the kind {other:?} is none of them")),
    };
    let mut any = false;
    for rate in rates.split(',') {
        let (name, number) = rate.split_once('=').ok_or_else(|| format!("{usage}; got {rate:?}"))?;
        let number = units(number)?;
        limit = match name {
            "write" => limit.write_units(number),
            "read" => limit.read_units(number),
            other => return Err(format!("{usage}; {other:?} is neither write nor read")),
        };
        any = true;
    }
    if !any {
        return Err(format!("{usage}; got {value:?}"));
    }
    Ok(TableLimitArg { table, index, limit })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamodb_names() {
        for good in ["Music", "a_b", "my-table.v2", &"t".repeat(255)] {
            assert_eq!(table_name(good).as_deref(), Ok(good));
            assert_eq!(index_name(good).as_deref(), Ok(good));
        }
        for (bad, reason) in [("", "it is empty"), ("ab", "it has 2 characters"), ("a/b", "it contains '/'")]
        {
            let error = table_name(bad).expect_err(bad);
            assert!(error.starts_with("a table name is 3 to 255 characters"), "{error}");
            assert!(error.ends_with(reason), "{error}");
        }
        assert!(table_name(&"t".repeat(256)).is_err());
    }

    #[test]
    fn endpoints() {
        for good in [
            "http://127.0.0.1:8000",
            "https://dynamodb.eu-west-1.amazonaws.com",
            "http://localhost:8000/",
            "HTTP://[::1]:8000",
            "http://dynamodb_local:8000/path?x=1",
        ] {
            assert_eq!(endpoint(good).as_deref(), Ok(good));
        }
        for (bad, reason) in [
            ("", "it is empty"),
            ("localhost:8000", "it has no scheme"),
            ("file:///tmp/x", "the scheme \"file\" is not http or https"),
            ("http://", "it has no host"),
            ("http://:1", "it has no host"),
            ("http://a b", "it contains ' '"),
            ("http://user@host", "it holds a user name"),
            ("http://[::1", "its IPv6 address has no closing ]"),
            ("http://[zz]:1", "\"zz\" is not an IPv6 address"),
            ("http://[::1]x", "\"x\" follows the IPv6 address"),
            ("http://host:0", "the port \"0\""),
            ("http://host:+80", "the port \"+80\""),
            ("http://host:", "the port \"\""),
            ("http://h%st", "its host contains '%'"),
        ] {
            let error = endpoint(bad).expect_err(bad);
            assert!(error.starts_with(reason), "{bad}: {error}");
        }
    }

    #[test]
    fn table_limits_are_read() {
        let limit = table_limit("Orders/ByCustomer=on-demand-max:write=300,read=900").expect("a limit");
        assert_eq!((limit.table.as_str(), limit.index.as_deref()), ("Orders", Some("ByCustomer")));
        let expected =
            dynashard_local::emulator::TableLimit::on_demand_maximum().write_units(300.0).read_units(900.0);
        assert_eq!(limit.limit, expected);
        assert!(table_limit("Orders=provisioned:write=10").is_ok());
        for bad in [
            "Orders",
            "Orders=provisioned",
            "Orders=spot:write=1",
            "Orders=account:write=-1",
            "Orders=account:size=1",
            "O=account:write=1",
        ] {
            assert!(table_limit(bad).is_err(), "{bad}");
        }
        assert!(scale("0").is_err() && scale("NaN").is_err() && scale("0.1").is_ok());
    }
}
