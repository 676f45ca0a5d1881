//! A parallel scan of one attribute: `segments` workers (Scan's Segment/TotalSegments), each
//! paging through its segment, feeding one consumer.

use super::target::Target;
use crate::error::CliError;
use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// One page of values: the attribute of each item, `None` where an item lacks it.
pub type Page = Vec<Option<AttributeValue>>;

/// Reads `attribute` of every item of `target`, calling `on_page` for each page as it arrives
/// (in no particular order). Stops at the first error, the consumer's included.
pub async fn scan_attribute(
    client: &Client,
    target: &Target,
    attribute: &str,
    segments: u32,
    mut on_page: impl FnMut(Page) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let (sender, mut receiver) = mpsc::channel::<Result<Page, CliError>>(segments.clamp(1, 64) as usize * 2);
    let total_segments = i32::try_from(segments).unwrap_or(i32::MAX);
    // Dropping the set (on an early return) aborts the workers still running.
    let mut workers = JoinSet::new();
    for segment in 0..total_segments {
        let request = client
            .scan()
            .table_name(&target.table)
            .set_index_name(target.index.clone())
            .segment(segment)
            .total_segments(total_segments)
            .projection_expression("#attribute")
            .expression_attribute_names("#attribute", attribute);
        let (sender, attribute, target) = (sender.clone(), attribute.to_owned(), target.clone());
        workers.spawn(async move {
            let mut start = None;
            loop {
                let page = match request.clone().set_exclusive_start_key(start.take()).send().await {
                    Ok(page) => page,
                    Err(error) => {
                        let message = DisplayErrorContext(&error).to_string();
                        let _ = sender
                            .send(Err(CliError::Dynamo { context: format!("scanning {target}"), message }))
                            .await;
                        return;
                    }
                };
                let next = page.last_evaluated_key.filter(|key| !key.is_empty());
                let values = page
                    .items
                    .unwrap_or_default()
                    .into_iter()
                    .map(|mut item| item.remove(&attribute))
                    .collect();
                if sender.send(Ok(values)).await.is_err() {
                    return;
                }
                match next {
                    Some(key) => start = Some(key),
                    None => return,
                }
            }
        });
    }
    drop(sender);
    while let Some(page) = receiver.recv().await {
        on_page(page?)?;
    }
    Ok(())
}
