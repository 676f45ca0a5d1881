//! A response body that reads the real body to its end, then yields a rewritten one.
//!
//! Interceptor hooks are synchronous and run before the SDK reads the body, so a body that must
//! be changed is wrapped instead: the SDK reads the wrapper, which drains the connection (keeping
//! it reusable) and then hands out the new bytes in one frame.

use super::batch::{merge, Withheld};
use super::error::FaultError;
use aws_smithy_types::body::SdkBody;
use bytes::Bytes;
use http_body::{Body, Frame};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// What to do with the real body once it has been read.
#[derive(Debug)]
pub(crate) enum Rewrite {
    /// Discard it and yield these bytes.
    Replace(Bytes),
    /// Add withheld batch entries to its unprocessed field.
    Merge(Withheld),
    /// Yield what this function makes of it.
    Map(fn(&[u8]) -> Vec<u8>),
}

/// The wrapper; see the module documentation.
#[derive(Debug)]
pub(crate) struct RewriteBody {
    inner: SdkBody,
    read: Vec<u8>,
    rewrite: Option<Rewrite>,
}

impl RewriteBody {
    /// Wraps `inner` into an [`SdkBody`] that yields the rewritten bytes.
    pub(crate) fn wrap(inner: SdkBody, rewrite: Rewrite) -> SdkBody {
        SdkBody::from_body_1_x(RewriteBody { inner, read: Vec::new(), rewrite: Some(rewrite) })
    }

    fn finish(&mut self, rewrite: Rewrite) -> Result<Bytes, FaultError> {
        match rewrite {
            Rewrite::Replace(bytes) => Ok(bytes),
            Rewrite::Merge(withheld) => merge(&self.read, withheld).map(Bytes::from),
            Rewrite::Map(map) => Ok(Bytes::from(map(&self.read))),
        }
    }
}

impl Body for RewriteBody {
    type Data = Bytes;
    type Error = FaultError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, FaultError>>> {
        let this = self.get_mut();
        while this.rewrite.is_some() {
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        this.read.extend_from_slice(&data);
                    }
                }
                Some(Err(error)) => {
                    this.rewrite = None;
                    return Poll::Ready(Some(Err(FaultError::ReadBody(error))));
                }
                None => {
                    let Some(rewrite) = this.rewrite.take() else { break };
                    return Poll::Ready(Some(this.finish(rewrite).map(Frame::data)));
                }
            }
        }
        Poll::Ready(None)
    }

    fn is_end_stream(&self) -> bool {
        self.rewrite.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::batch::{split, BatchKind};
    use rand::SeedableRng;
    use std::future::poll_fn;

    fn collect(mut body: SdkBody) -> Result<Vec<u8>, String> {
        futures::executor::block_on(async {
            let mut out = Vec::new();
            while let Some(frame) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
                if let Ok(data) = frame.map_err(|e| format!("{e:?}"))?.into_data() {
                    out.extend_from_slice(&data);
                }
            }
            Ok(out)
        })
    }

    fn withheld() -> Withheld {
        let body = br#"{"RequestItems":{"T":[{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]}}"#;
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        split(BatchKind::Write, body, &mut rng).expect("a split").withheld
    }

    #[test]
    fn replace_discards_the_real_body() {
        let body =
            RewriteBody::wrap(SdkBody::from("{\"TableNames\":[]}"), Rewrite::Replace(Bytes::from("{}")));
        assert_eq!(collect(body), Ok(b"{}".to_vec()));
    }

    #[test]
    fn merge_adds_the_withheld_entries() {
        let body = RewriteBody::wrap(SdkBody::from("{\"UnprocessedItems\":{}}"), Rewrite::Merge(withheld()));
        let merged = String::from_utf8(collect(body).unwrap()).unwrap();
        assert_eq!(merged, r#"{"UnprocessedItems":{"T":[{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]}}"#);
    }

    #[test]
    fn a_broken_merge_fails_the_read() {
        let body = RewriteBody::wrap(SdkBody::from("[1]"), Rewrite::Merge(withheld()));
        let result = collect(body);
        assert!(result.as_ref().is_err_and(|e| e.contains("BatchWriteItem")), "{result:?}");
    }
}
