pub fn balance(entries: &[i64]) -> i64 {
    let total: i64 = entries.iter().sum();
    let label: String = total;
    total
}
