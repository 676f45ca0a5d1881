//! The HTTP side: accepting connections, reading requests, dispatching them by operation.

use super::reply::Reply;
use super::state::Shared;
use super::upstream::TARGET_HEADER;
use super::write_plan::WriteKind;
use super::{batch_reads, reads, streams, writes};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{HeaderMap, Request, Response};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// DynamoDB's largest request: 16 MB.
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// Serves connections accepted on `listener` until the future is dropped.
pub(crate) async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    let service = service_fn(move |request| respond(Arc::clone(&shared), request));
                    // A client that hangs up mid-request ends its connection; nothing to report.
                    let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
                });
            }
            // Out of file descriptors and the like: wait a little instead of spinning.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

async fn respond(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let answer_at = tokio::time::Instant::now() + shared.round_trip();
    let (parts, body) = request.into_parts();
    let reply = match Limited::new(body, MAX_REQUEST_BYTES).collect().await {
        // A task of its own: a client that hangs up does not stop a request half way, with
        // capacity taken and never settled.
        Ok(body) => {
            let headers = parts.headers;
            let handled = tokio::spawn(async move { handle(&shared, &headers, body.to_bytes()).await });
            handled.await.unwrap_or_else(|error| Reply::internal(&format!("the request failed: {error}")))
        }
        Err(error) => Reply::internal(&format!("reading the request failed: {error}")),
    };
    tokio::time::sleep_until(answer_at).await;
    let mut response = Response::new(Full::new(reply.body));
    *response.status_mut() = reply.status;
    *response.headers_mut() = reply.headers;
    Ok(response)
}

/// The operation of a request, from `X-Amz-Target: DynamoDB_20120810.PutItem`.
fn operation(headers: &HeaderMap) -> Option<&str> {
    let target = headers.get(TARGET_HEADER)?.to_str().ok()?;
    target.rsplit_once('.').map(|(_, operation)| operation)
}

#[derive(Deserialize)]
struct Named {
    #[serde(rename = "TableName")]
    table_name: Option<String>,
}

async fn handle(shared: &Shared, headers: &HeaderMap, body: Bytes) -> Reply {
    let operation = operation(headers).unwrap_or_default().to_owned();
    let target = headers.get(TARGET_HEADER).and_then(|target| target.to_str().ok()).unwrap_or_default();
    if target.starts_with("DynamoDBStreams") {
        return match streams::handle(shared, headers, target, &body).await {
            Ok(Some(reply)) => reply,
            Ok(None) => match shared.upstream.send(headers, body).await {
                Ok(answer) => Reply::forward(answer),
                Err(error) => Reply::internal(&error.to_string()),
            },
            Err(error) => Reply::internal(&error.to_string()),
        };
    }
    let handled = match operation.as_str() {
        "PutItem" => writes::single(shared, headers, body.clone(), WriteKind::Put).await,
        "UpdateItem" => writes::single(shared, headers, body.clone(), WriteKind::Update).await,
        "DeleteItem" => writes::single(shared, headers, body.clone(), WriteKind::Delete).await,
        "BatchWriteItem" => writes::batch(shared, headers, body.clone()).await,
        "TransactWriteItems" => writes::transaction(shared, headers, body.clone()).await,
        "GetItem" => reads::get(shared, headers, body.clone()).await,
        "Query" => reads::search(shared, headers, body.clone(), "Query").await,
        "Scan" => reads::search(shared, headers, body.clone(), "Scan").await,
        "BatchGetItem" => batch_reads::batch(shared, headers, body.clone()).await,
        "TransactGetItems" => reads::transaction(shared, headers, body.clone()).await,
        "CreateTable" | "UpdateTable" | "DeleteTable" => {
            // Forgotten once the change is made, so that no request in between caches the old.
            let answer = shared.upstream.send(headers, body.clone()).await;
            if let Ok(Named { table_name: Some(table) }) = serde_json::from_slice::<Named>(&body) {
                shared.forget_schema(headers, &table);
            }
            answer.map(|answer| Some(Reply::forward(answer)))
        }
        _ => Ok(None),
    };
    match handled {
        Ok(Some(reply)) => reply,
        Ok(None) => match shared.upstream.send(headers, body).await {
            Ok(answer) => Reply::forward(answer),
            Err(error) => Reply::internal(&error.to_string()),
        },
        Err(error) => Reply::internal(&error.to_string()),
    }
}
