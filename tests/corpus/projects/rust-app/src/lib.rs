//! A small ledger with planted test failures.

pub fn add(a: i64, b: i64) -> i64 {
    a + b + 1
}

pub fn parse_qty(text: &str) -> Option<u32> {
    text.trim().parse().ok()
}

pub fn first_word(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

pub fn is_empty_list(v: &Vec<i32>) -> bool {
    return v.len() == 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_two_numbers() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn adds_negatives() {
        assert_eq!(add(-1, -1), -2);
    }

    #[test]
    fn parses_a_quantity() {
        let qty = parse_qty("seven").unwrap();
        assert_eq!(qty, 7);
    }

    #[test]
    fn first_word_of_a_title() {
        assert!(first_word("hello world") == "world", "first word was not world");
    }

    #[test]
    fn empty_list() {
        assert!(is_empty_list(&vec![]));
    }
}
