//! The DynamoDB endpoint behind the emulator: forwarding requests, and the emulator's own reads
//! (table descriptions, items before and after a write), made with the caller's credentials
//! so that DynamoDB Local serves them from the same database.

use super::wire::{key_values, WireItem};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The header naming the operation, e.g. `DynamoDB_20120810.PutItem`.
pub(crate) const TARGET_HEADER: &str = "x-amz-target";
const SERVICE_PREFIX: &str = "DynamoDB_20120810.";
/// Request headers that describe the connection or the body, set again for every request sent.
const HOP_HEADERS: [&str; 5] =
    ["host", "content-length", "transfer-encoding", "connection", "accept-encoding"];

/// An answer from the endpoint, read whole.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Answer {
    /// The error code of a 4xx or 5xx answer, e.g. `ConditionalCheckFailedException`.
    pub(crate) fn error_code(&self) -> Option<String> {
        if self.status.is_success() {
            return None;
        }
        #[derive(Deserialize)]
        struct ErrorType {
            #[serde(rename = "__type")]
            kind: Option<String>,
        }
        let kind = serde_json::from_slice::<ErrorType>(&self.body).ok()?.kind?;
        Some(kind.rsplit('#').next().unwrap_or(&kind).to_owned())
    }
}

/// Why the endpoint could not be asked.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UpstreamError {
    #[error("cannot reach DynamoDB at {uri}: {source}")]
    Send { uri: Uri, source: Box<dyn std::error::Error + Send + Sync> },
    #[error("DynamoDB answered {operation} with HTTP {status}: {body}")]
    Refused { operation: &'static str, status: StatusCode, body: String },
    #[error("DynamoDB's answer to {operation} is not what it should be: {source}")]
    Answer { operation: &'static str, source: serde_json::Error },
}

/// A connection pool to the endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Upstream {
    client: Client<HttpConnector, Full<Bytes>>,
    uri: Uri,
}

impl Upstream {
    pub(crate) fn new(uri: Uri) -> Self {
        let client = Client::builder(TokioExecutor::new()).build_http();
        Self { client, uri }
    }

    /// Sends `body` with the caller's `headers` (credentials, date, operation).
    pub(crate) async fn send(&self, headers: &HeaderMap, body: Bytes) -> Result<Answer, UpstreamError> {
        let mut request = Request::builder().method(Method::POST).uri(self.uri.clone());
        if let Some(target) = request.headers_mut() {
            for (name, value) in headers {
                if !HOP_HEADERS.contains(&name.as_str()) {
                    target.append(name.clone(), value.clone());
                }
            }
        }
        let request = request
            .body(Full::new(body))
            .map_err(|error| UpstreamError::Send { uri: self.uri.clone(), source: Box::new(error) })?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|error| UpstreamError::Send { uri: self.uri.clone(), source: Box::new(error) })?;
        let (parts, body) = response.into_parts();
        let body = body
            .collect()
            .await
            .map_err(|error| UpstreamError::Send { uri: self.uri.clone(), source: Box::new(error) })?
            .to_bytes();
        Ok(Answer { status: parts.status, headers: parts.headers, body })
    }

    /// Calls `operation` with `input`, as the caller whose `headers` are given; the answer must
    /// be a success.
    pub(crate) async fn call<I: Serialize, O: for<'de> Deserialize<'de>>(
        &self,
        headers: &HeaderMap,
        operation: &'static str,
        input: &I,
    ) -> Result<O, UpstreamError> {
        let answer = self.send_as(headers, &format!("{SERVICE_PREFIX}{operation}"), operation, input).await?;
        if !answer.status.is_success() {
            let body = String::from_utf8_lossy(&answer.body).into_owned();
            return Err(UpstreamError::Refused { operation, status: answer.status, body });
        }
        serde_json::from_slice(&answer.body).map_err(|source| UpstreamError::Answer { operation, source })
    }

    /// Sends `input` as the request `target` names (`DynamoDBStreams_20120810.GetRecords`), as
    /// the caller whose `headers` are given; the answer as it came, success or not.
    pub(crate) async fn send_as<I: Serialize>(
        &self,
        headers: &HeaderMap,
        target: &str,
        operation: &'static str,
        input: &I,
    ) -> Result<Answer, UpstreamError> {
        let mut headers = headers.clone();
        let target = HeaderValue::try_from(target)
            .map_err(|error| UpstreamError::Send { uri: self.uri.clone(), source: Box::new(error) })?;
        headers.insert(HeaderName::from_static(TARGET_HEADER), target);
        let body = serde_json::to_vec(input).map_err(|source| UpstreamError::Answer { operation, source })?;
        self.send(&headers, Bytes::from(body)).await
    }

    /// The items stored under `keys` of `table` (strongly consistent; `None` where there is
    /// none), in the order of `keys`. Keys must be distinct.
    pub(crate) async fn read_items(
        &self,
        headers: &HeaderMap,
        table: &str,
        key_names: &[String],
        keys: &[WireItem],
    ) -> Result<Vec<Option<WireItem>>, UpstreamError> {
        let mut found: Vec<WireItem> = Vec::new();
        for chunk in keys.chunks(100) {
            let mut pending = vec![chunk.to_vec()];
            while let Some(keys) = pending.pop() {
                if keys.is_empty() {
                    continue;
                }
                let input = BatchGetInput {
                    request_items: BTreeMap::from([(
                        table.to_owned(),
                        KeysOnly { keys, consistent_read: true },
                    )]),
                };
                let output: BatchGetOutput = self.call(headers, "BatchGetItem", &input).await?;
                found.extend(output.responses.into_values().flatten());
                pending.extend(output.unprocessed_keys.into_values().map(|keys| keys.keys));
            }
        }
        Ok(keys
            .iter()
            .map(|key| {
                found.iter().find(|item| key_values(item, key_names) == key_values(key, key_names)).cloned()
            })
            .collect())
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct BatchGetInput {
    request_items: BTreeMap<String, KeysOnly>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct KeysOnly {
    keys: Vec<WireItem>,
    #[serde(default)]
    consistent_read: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct BatchGetOutput {
    #[serde(default)]
    responses: BTreeMap<String, Vec<WireItem>>,
    #[serde(default)]
    unprocessed_keys: BTreeMap<String, KeysOnly>,
}
