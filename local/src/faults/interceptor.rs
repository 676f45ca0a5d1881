//! The SDK interceptor: rewrites requests before they are signed and responses before the SDK
//! reads them.

use super::batch::{all_unprocessed, split, BatchKind, Withheld};
use super::body::{Rewrite, RewriteBody};
use super::error::FaultError;
use super::plan::{decide, Decision};
use super::shared::Shared;
use aws_sdk_dynamodb::config::http::{HttpRequest, HttpResponse};
use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use bytes::Bytes;
use dynashard::throttling::throttling_body;
use std::error::Error as StdError;
use std::sync::Arc;

type BoxError = Box<dyn StdError + Send + Sync>;

const TARGET_HEADER: &str = "x-amz-target";
const JSON_CONTENT_TYPE: &str = "application/x-amz-json-1.0";
const THROTTLING_MESSAGE: &str = "The request rate exceeds the throughput available to it (injected fault).";
const SERVER_ERROR_BODY: &str = concat!(
    r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","#,
    r#""message":"Internal server error (injected fault)"}"#
);

/// The fault planned for the current attempt, carried from the request hook to the response hook
/// in the attempt's config bag.
#[derive(Debug, Clone)]
enum Planned {
    Throttle,
    ServerError,
    /// Part of a batch was withheld; add it to the real response.
    Merge(Withheld),
    /// The whole batch was withheld; answer with this body.
    AllUnprocessed(Bytes),
}

impl Storable for Planned {
    type Storer = StoreReplace<Self>;
}

/// The interceptor that injects the faults of a [`FaultInjector`](super::FaultInjector); add it to
/// a configuration with [`FaultInjector::attach`](super::FaultInjector::attach), or to a single
/// call with `.customize().interceptor(..)`.
#[derive(Debug, Clone)]
pub struct FaultInterceptor {
    shared: Arc<Shared>,
}

impl FaultInterceptor {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }

    /// Picks this attempt's fault and rewrites the request so that it does not take effect (or,
    /// for unprocessed entries, takes effect only for the entries that stay in it).
    fn plan(&self, request: &mut HttpRequest) -> Result<Option<Planned>, FaultError> {
        let Some(operation) = operation_name(request) else { return Ok(None) };
        let shared = &self.shared;
        let mut state = shared.lock();
        let state = &mut *state;
        state.stats.entry(&operation).attempts += 1;
        if !shared.is_enabled() || !shared.settings.applies_to(&operation) {
            return Ok(None);
        }
        let batch = BatchKind::of(&operation);
        let planned = match decide(&shared.settings.rates, &mut state.rng, batch.is_some()) {
            Decision::Pass => return Ok(None),
            Decision::Throttle => {
                state.stats.entry(&operation).throttled += 1;
                neutralize(request)?;
                Planned::Throttle
            }
            Decision::ServerError => {
                state.stats.entry(&operation).server_errors += 1;
                neutralize(request)?;
                Planned::ServerError
            }
            Decision::Unprocessed => {
                let (Some(kind), Some(body)) = (batch, request.body().bytes()) else { return Ok(None) };
                let Some(split) = split(kind, body, &mut state.rng) else { return Ok(None) };
                let stats = state.stats.entry(&operation);
                stats.unprocessed += 1;
                stats.unprocessed_entries += split.withheld.count() as u64;
                match split.remaining {
                    Some(remaining) => {
                        set_body(request, remaining)?;
                        Planned::Merge(split.withheld)
                    }
                    None => {
                        neutralize(request)?;
                        Planned::AllUnprocessed(Bytes::from(all_unprocessed(split.withheld)?))
                    }
                }
            }
        };
        Ok(Some(planned))
    }
}

impl Intercept for FaultInterceptor {
    fn name(&self) -> &'static str {
        "dynashard_local::faults::FaultInterceptor"
    }

    /// Runs on every attempt, before signing, so that the signature covers the rewritten request.
    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let planned = self.plan(context.request_mut())?;
        cfg.interceptor_state().store_or_unset(planned);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(planned) = cfg.load::<Planned>().cloned() else { return Ok(()) };
        cfg.interceptor_state().unset::<Planned>();
        let response = context.response_mut();
        match planned {
            Planned::Throttle => {
                let body = throttling_body(&self.shared.settings.reasons, THROTTLING_MESSAGE);
                replace(response, 400, Bytes::from(body))?
            }
            Planned::ServerError => replace(response, 500, Bytes::from_static(SERVER_ERROR_BODY.as_bytes()))?,
            Planned::AllUnprocessed(body) => replace(response, 200, body)?,
            Planned::Merge(withheld) => {
                // An error response (a real one) has nothing to merge into.
                if response.status().as_u16() == 200 {
                    let headers = response.headers_mut();
                    headers.remove("content-length");
                    headers.remove("x-amz-crc32");
                    let body = std::mem::replace(response.body_mut(), SdkBody::taken());
                    *response.body_mut() = RewriteBody::wrap(body, Rewrite::Merge(withheld));
                }
            }
        }
        Ok(())
    }
}

/// The operation of a DynamoDB request, from `X-Amz-Target: DynamoDB_20120810.PutItem`.
fn operation_name(request: &HttpRequest) -> Option<String> {
    let target = request.headers().get(TARGET_HEADER)?;
    target.rsplit_once('.').map(|(_, operation)| operation.to_owned())
}

/// Turns the request into a `ListTables` call with an empty body, which changes nothing.
fn neutralize(request: &mut HttpRequest) -> Result<(), FaultError> {
    let service = request
        .headers()
        .get(TARGET_HEADER)
        .and_then(|target| target.rsplit_once('.'))
        .map_or_else(|| "DynamoDB_20120810".to_owned(), |(service, _)| service.to_owned());
    request.headers_mut().try_insert(TARGET_HEADER, format!("{service}.ListTables")).map_err(http_error)?;
    set_body(request, b"{}".to_vec())
}

fn set_body(request: &mut HttpRequest, body: Vec<u8>) -> Result<(), FaultError> {
    request.headers_mut().try_insert("content-length", body.len().to_string()).map_err(http_error)?;
    *request.body_mut() = SdkBody::from(body);
    Ok(())
}

/// Replaces status and body; the real body is still read to its end first.
fn replace(response: &mut HttpResponse, status: u16, body: Bytes) -> Result<(), FaultError> {
    *response.status_mut() = status.try_into().map_err(http_error)?;
    let headers = response.headers_mut();
    headers.remove("x-amz-crc32");
    headers.try_insert("content-type", JSON_CONTENT_TYPE).map_err(http_error)?;
    headers.try_insert("content-length", body.len().to_string()).map_err(http_error)?;
    let real = std::mem::replace(response.body_mut(), SdkBody::taken());
    *response.body_mut() = RewriteBody::wrap(real, Rewrite::Replace(body));
    Ok(())
}

fn http_error(error: impl StdError + Send + Sync + 'static) -> FaultError {
    FaultError::Http(Box::new(error))
}
