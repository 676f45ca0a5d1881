//! After an update: the updated item placed in the target layouts of its reshardings.

use super::view::Reshards;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::item::table_of;
use crate::metadata::{mappings, Checked, MigrationKind};

impl<E: Entity> Reshards<'_, E> {
    /// After an update returned `item` (all its attributes): writes its place in the target
    /// layouts of `E`'s reshardings under way where it changed, unless a writer changed the item
    /// again meanwhile (that writer then placed it).
    pub async fn follow(&self, item: &Item) -> Result<()> {
        let Some(shards) = self.cache() else { return Ok(()) };
        for mapping in mappings::<E>() {
            let Some(Some(cached)) = shards.cached_reshard(&self.key(mapping.index)) else {
                continue;
            };
            // An added mapping's writers compose its keys themselves.
            if cached.state.kind != MigrationKind::Reshard {
                continue;
            }
            let checked = Checked::new::<E>(&cached.state)?;
            let mut placed = item.clone();
            checked.mirror(&mut placed, cached.state.phase);
            let changed = |name: &str| placed.get(name) != item.get(name);
            let Some(source) = checked.source() else { continue };
            let attributes = [checked.target.0, checked.target.1, source.0, source.1];
            if !attributes.iter().any(|name| changed(name)) {
                continue;
            }
            crate::index_key_limits::check_item(crate::item::table_of::<E>(), &placed)?;
            let mut request = self
                .db
                .client()
                .update_item()
                .table_name(self.db.table_of::<E>())
                .set_key(Some(crate::item::key_of(item, table_of::<E>())));
            let (mut sets, mut removes, mut conditions) = (Vec::new(), Vec::new(), Vec::new());
            for (position, name) in attributes.iter().enumerate() {
                request = request.expression_attribute_names(format!("#a{position}"), *name);
                match item.get(*name) {
                    Some(value) => {
                        conditions.push(format!("#a{position} = :old{position}"));
                        request =
                            request.expression_attribute_values(format!(":old{position}"), value.clone());
                    }
                    None => conditions.push(format!("attribute_not_exists(#a{position})")),
                }
                if !changed(name) {
                    continue;
                }
                match placed.get(*name) {
                    Some(value) => {
                        sets.push(format!("#a{position} = :new{position}"));
                        request =
                            request.expression_attribute_values(format!(":new{position}"), value.clone());
                    }
                    None => removes.push(format!("#a{position}")),
                }
            }
            let mut expression = String::new();
            if !sets.is_empty() {
                expression.push_str(&format!("SET {}", sets.join(", ")));
            }
            if !removes.is_empty() {
                expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
            }
            let result = request
                .update_expression(expression.trim())
                .condition_expression(conditions.join(" AND "))
                .send()
                .await;
            match result {
                Ok(_) => {}
                Err(error)
                    if aws_sdk_dynamodb::error::ProvideErrorMetadata::code(&error)
                        == Some("ConditionalCheckFailedException") => {}
                Err(error) => return Err(Error::from_sdk("UpdateItem", error)),
            }
        }
        Ok(())
    }
}
