//! Rust names derived from DynamoDB index names.

/// `OpenOrders` -> `open_orders`, `GSI1` -> `gsi1`, `by-customer.v2` -> `by_customer_v2`,
/// `HTTPRequests` -> `http_requests`.
pub fn snake_case(name: &str) -> String {
    let mut snake = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (position, c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let after_lower = position > 0
                && (chars[position - 1].is_ascii_lowercase() || chars[position - 1].is_ascii_digit());
            let before_lower = chars.get(position + 1).is_some_and(|next| next.is_ascii_lowercase());
            let after_upper = position > 0 && chars[position - 1].is_ascii_uppercase();
            if after_lower || (after_upper && before_lower) {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            snake.push(*c);
        } else if !snake.ends_with('_') {
            snake.push('_');
        }
    }
    snake.trim_matches('_').to_owned()
}

/// The constant naming an index: `ByTitle` -> `BY_TITLE`; one starting with a digit gets a
/// leading `_` (`2024Orders` -> `_2024_ORDERS`).
pub fn constant_case(name: &str) -> String {
    let upper = snake_case(name).to_ascii_uppercase();
    match upper.chars().next() {
        Some(first) if first.is_ascii_alphabetic() => upper,
        _ => format!("_{upper}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_names_become_rust_names() {
        assert_eq!(snake_case("GSI1"), "gsi1");
        assert_eq!(snake_case("OpenOrders"), "open_orders");
        assert_eq!(snake_case("by-customer.v2"), "by_customer_v2");
        assert_eq!(snake_case("HTTPRequests"), "http_requests");
        assert_eq!(constant_case("ByTitle"), "BY_TITLE");
        assert_eq!(constant_case("GSI1"), "GSI1");
        assert_eq!(constant_case("2024Orders"), "_2024_ORDERS");
    }
}
