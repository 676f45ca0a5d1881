//! A handler's answer read as Lambda reads it: where the shard resumes, or that the batch failed
//! whole.

use serde_json::Value;

/// What an invocation's outcome asks of the shard.
pub(super) enum Outcome {
    /// The batch succeeded.
    Done,
    /// Resume at this record of the batch (an offset from its first).
    ResumeAt(usize),
    /// The whole batch failed.
    Failed(String),
}

/// An answer read as Lambda reads it with `ReportBatchItemFailures` (see [`EventSourceMapping`](super::EventSourceMapping)).
pub(super) fn read_answer(answer: Option<Value>, batch: &[(Value, String)]) -> Outcome {
    let failures = match answer {
        None => return Outcome::Failed("the answer is not JSON".to_owned()),
        Some(Value::Null) => return Outcome::Done,
        Some(Value::Object(answer)) => match answer.get("batchItemFailures") {
            None | Some(Value::Null) => return Outcome::Done,
            Some(Value::Array(failures)) => failures.clone(),
            Some(other) => return Outcome::Failed(format!("`batchItemFailures` is not a list: {other}")),
        },
        Some(other) => return Outcome::Failed(format!("the answer is not an object: {other}")),
    };
    let mut lowest: Option<usize> = None;
    for failure in &failures {
        let identifier = failure.get("itemIdentifier").and_then(Value::as_str).unwrap_or_default();
        let Some(offset) =
            batch.iter().position(|(_, sequence)| !identifier.is_empty() && sequence == identifier)
        else {
            return Outcome::Failed(format!("`{failure}` names no record of the batch"));
        };
        lowest = Some(lowest.map_or(offset, |lowest| lowest.min(offset)));
    }
    lowest.map_or(Outcome::Done, Outcome::ResumeAt)
}

#[cfg(test)]
mod tests {
    use super::{read_answer, Outcome};
    use serde_json::{json, Value};

    fn batch() -> Vec<(Value, String)> {
        ["100", "101", "102"].iter().map(|sequence| (Value::Null, (*sequence).to_owned())).collect()
    }

    fn read(answer: Value) -> String {
        match read_answer(Some(answer), &batch()) {
            Outcome::Done => "done".to_owned(),
            Outcome::ResumeAt(offset) => format!("resume at {offset}"),
            Outcome::Failed(_) => "failed".to_owned(),
        }
    }

    #[test]
    fn answers_are_read_as_lambda_documents() {
        assert_eq!(read(Value::Null), "done");
        assert_eq!(read(json!({})), "done");
        assert_eq!(read(json!({ "batchItemFailures": null })), "done");
        assert_eq!(read(json!({ "batchItemFailures": [] })), "done");
        // The lowest sequence number named is where the shard resumes.
        let named =
            json!({ "batchItemFailures": [{ "itemIdentifier": "102" }, { "itemIdentifier": "101" }] });
        assert_eq!(read(named), "resume at 1");
        assert_eq!(read(json!({ "batchItemFailures": [{ "itemIdentifier": "100" }] })), "resume at 0");
        // What names no record of the batch fails it whole.
        for bad in [
            json!({ "batchItemFailures": [{ "itemIdentifier": "" }] }),
            json!({ "batchItemFailures": [{ "itemIdentifier": null }] }),
            json!({ "batchItemFailures": [{ "identifier": "101" }] }),
            json!({ "batchItemFailures": [{ "itemIdentifier": "999" }] }),
            json!({ "batchItemFailures": "101" }),
            json!("ok"),
        ] {
            assert_eq!(read(bad.clone()), "failed", "{bad}");
        }
        assert!(matches!(read_answer(None, &batch()), Outcome::Failed(_)));
    }
}
