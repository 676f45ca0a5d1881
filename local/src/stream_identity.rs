//! Stream records read as DynamoDB's Streams API spells them. The embedded DynamoDB writes the
//! `userIdentity` of a deletion by time to live as a Lambda event spells it (`type`,
//! `principalId`), where the Streams API, and the SDK that reads it, spell `Type` and
//! `PrincipalId`: read as it is, such a record names no principal, and a change feed would not
//! tell the deletion from a delete. The streams clients this crate makes carry
//! [`StreamIdentity`], which respells the identity of every `GetRecords` answer as the SDK reads
//! it.

use crate::faults::body::{Rewrite, RewriteBody};
use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use serde_json::Value;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The SDK interceptor of a streams client that respells the identities of `GetRecords`
/// answers (see the module documentation); harmless against a backend that spells them right.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamIdentity;

/// Marks an attempt whose request is a `GetRecords` call.
#[derive(Debug, Clone, Copy)]
struct GetRecords;

impl Storable for GetRecords {
    type Storer = StoreReplace<Self>;
}

impl Intercept for StreamIdentity {
    fn name(&self) -> &'static str {
        "dynashard_local::StreamIdentity"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let target = context.request().headers().get("x-amz-target").unwrap_or_default();
        match target.ends_with(".GetRecords") {
            true => cfg.interceptor_state().store_put(GetRecords),
            false => cfg.interceptor_state().unset::<GetRecords>(),
        };
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<GetRecords>().is_none() {
            return Ok(());
        }
        let response = context.response_mut();
        if response.status().as_u16() == 200 {
            let headers = response.headers_mut();
            headers.remove("content-length");
            headers.remove("x-amz-crc32");
            let body = std::mem::replace(response.body_mut(), SdkBody::taken());
            *response.body_mut() = RewriteBody::wrap(body, Rewrite::Map(respell));
        }
        Ok(())
    }
}

/// A streams client for `endpoint` that reads stream records' identities in either spelling.
pub(crate) fn streams_client(endpoint: &str) -> aws_sdk_dynamodbstreams::Client {
    let client = dynashard::client::streams_client_for_endpoint(endpoint);
    let config = client.config().to_builder().interceptor(StreamIdentity).build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

/// `body`, a `GetRecords` answer, with each record's `userIdentity` spelled `Type` and
/// `PrincipalId`; unchanged when it needs no change or is not the JSON object expected.
pub(crate) fn respell(body: &[u8]) -> Vec<u8> {
    const LAMBDA_SPELLING: &[u8] = b"\"principalId\"";
    if !body.windows(LAMBDA_SPELLING.len()).any(|window| window == LAMBDA_SPELLING) {
        return body.to_vec();
    }
    let Ok(mut answer) = serde_json::from_slice::<Value>(body) else { return body.to_vec() };
    let records = answer.get_mut("Records").and_then(Value::as_array_mut).into_iter().flatten();
    for record in records {
        let Some(identity) = record.get_mut("userIdentity").and_then(Value::as_object_mut) else { continue };
        for (lambda, streams) in [("type", "Type"), ("principalId", "PrincipalId")] {
            if let Some(value) = identity.remove(lambda) {
                identity.entry(streams).or_insert(value);
            }
        }
    }
    serde_json::to_vec(&answer).unwrap_or_else(|_| body.to_vec())
}

#[cfg(test)]
mod tests {
    use super::respell;
    use serde_json::{json, Value};

    #[test]
    fn an_identity_spelled_as_lambda_does_is_respelled_as_the_streams_api_does() {
        let body = json!({"Records": [
            {"eventName": "REMOVE", "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"}},
            {"eventName": "INSERT"},
            {"eventName": "REMOVE", "userIdentity": {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}}
        ], "NextShardIterator": "i"});
        let respelled: Value = serde_json::from_slice(&respell(body.to_string().as_bytes())).unwrap();
        let identity = json!({"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"});
        assert_eq!(respelled["Records"][0]["userIdentity"], identity);
        assert_eq!(respelled["Records"][1], json!({"eventName": "INSERT"}));
        assert_eq!(respelled["Records"][2]["userIdentity"], identity);
        assert_eq!(respelled["NextShardIterator"], "i");
    }

    #[test]
    fn an_answer_without_lambda_spellings_is_left_as_it_is() {
        for body in [&b"{\"Records\":[]}"[..], b"not json \"principalId\"", b""] {
            assert_eq!(respell(body), body);
        }
    }
}
