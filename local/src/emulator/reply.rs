//! The emulator's answers: the endpoint's own, rewritten ones, and the errors DynamoDB gives
//! when it throttles.

use super::upstream::Answer;
use bytes::Bytes;
use dynashard::throttling::{throttling_body, ThrottleLimit, ThrottlingReason};
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::{HeaderMap, StatusCode};
use serde::Serialize;

const JSON: &str = "application/x-amz-json-1.0";
/// Response headers that describe the connection or the body, set again for every answer.
const HOP_HEADERS: [&str; 4] = ["content-length", "transfer-encoding", "connection", "x-amz-crc32"];

/// What the client is answered.
#[derive(Debug)]
pub(crate) struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    /// The endpoint's answer, as it came.
    pub(crate) fn forward(answer: Answer) -> Self {
        let mut headers = answer.headers;
        for name in HOP_HEADERS {
            if name != "x-amz-crc32" {
                headers.remove(name);
            }
        }
        Self { status: answer.status, headers, body: answer.body }
    }

    /// The endpoint's answer with another body (its checksum dropped).
    pub(crate) fn rewritten(answer: Answer, body: Vec<u8>) -> Self {
        let mut headers = answer.headers;
        for name in HOP_HEADERS {
            headers.remove(name);
        }
        Self { status: answer.status, headers, body: Bytes::from(body) }
    }

    /// An answer of the emulator's own: `status`, and a JSON body.
    pub(crate) fn error(status: StatusCode, body: Vec<u8>) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(JSON));
        Self { status, headers, body: Bytes::from(body) }
    }

    /// The HTTP 400 DynamoDB answers a throttled request with.
    pub(crate) fn throttled(reasons: &[ThrottlingReason]) -> Self {
        let limit = reasons.first().and_then(ThrottlingReason::kind).map(|kind| kind.limit);
        let message = match limit {
            Some(ThrottleLimit::KeyRange) | None => {
                "Throughput exceeds the current capacity for one or more partitions of your table or index \
                 (partition-limit emulator)"
            }
            Some(ThrottleLimit::Provisioned) => {
                "The level of configured provisioned throughput for the table or index was exceeded \
                 (partition-limit emulator)"
            }
            Some(ThrottleLimit::MaxOnDemand) => {
                "Throughput exceeds the maximum on-demand throughput configured for the table or index \
                 (partition-limit emulator)"
            }
            Some(ThrottleLimit::AccountLimit) => {
                "Throughput exceeds the current throughput quota for your account (partition-limit emulator)"
            }
        };
        Self::error(StatusCode::BAD_REQUEST, throttling_body(reasons, message))
    }

    /// The `TransactionCanceledException` of a transaction refused for lack of capacity: one
    /// code per action, `ThrottlingError` for those that were over a limit, `None` for the rest.
    pub(crate) fn transaction_throttled(throttled: &[bool]) -> Self {
        #[derive(Serialize)]
        struct Reason {
            #[serde(rename = "Code")]
            code: &'static str,
            #[serde(rename = "Message", skip_serializing_if = "Option::is_none")]
            message: Option<&'static str>,
        }
        #[derive(Serialize)]
        struct Body {
            #[serde(rename = "__type")]
            kind: &'static str,
            message: String,
            #[serde(rename = "CancellationReasons")]
            reasons: Vec<Reason>,
        }
        let reasons: Vec<Reason> = throttled
            .iter()
            .map(|throttled| match throttled {
                true => Reason {
                    code: "ThrottlingError",
                    message: Some("Throughput exceeds the current capacity of your table or index."),
                },
                false => Reason { code: "None", message: None },
            })
            .collect();
        let codes: Vec<&str> = reasons.iter().map(|reason| reason.code).collect();
        let body = Body {
            kind: "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
            message: format!(
                "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
                codes.join(", ")
            ),
            reasons,
        };
        Self::error(StatusCode::BAD_REQUEST, serde_json::to_vec(&body).unwrap_or_default())
    }

    /// A success of the emulator's own, with `body` as JSON.
    pub(crate) fn json(body: &serde_json::Value) -> Self {
        Self::error(StatusCode::OK, serde_json::to_vec(body).unwrap_or_default())
    }

    /// An answer of the emulator's own, its JSON body written already.
    pub(crate) fn json_text(body: String) -> Self {
        Self::error(StatusCode::OK, body.into_bytes())
    }

    /// An HTTP 400 of the emulator's own: the exception `code` (`ResourceNotFoundException`),
    /// with `message`.
    pub(crate) fn refused(code: &str, message: &str) -> Self {
        let body = serde_json::json!({ "__type": format!("com.amazonaws.dynamodb.v20120810#{code}"), "message": message });
        Self::error(StatusCode::BAD_REQUEST, serde_json::to_vec(&body).unwrap_or_default())
    }

    /// An HTTP 500 `InternalServerError`: the emulator could not do its part.
    pub(crate) fn internal(message: &str) -> Self {
        #[derive(Serialize)]
        struct Body<'a> {
            #[serde(rename = "__type")]
            kind: &'static str,
            message: &'a str,
        }
        let body = Body { kind: "com.amazonaws.dynamodb.v20120810#InternalServerError", message };
        Self::error(StatusCode::INTERNAL_SERVER_ERROR, serde_json::to_vec(&body).unwrap_or_default())
    }
}
