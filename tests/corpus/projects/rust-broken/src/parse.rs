pub fn quantity(text: &str) -> u32 {
    let n: u32 = text.trim();
    n
}

pub fn words(text: &str) -> usize {
    let parts: Vec<&str> = text.split(' ').collect();
    parts.lenght()
}
