fn weight(line: &str) -> u64 {
    let grams: u64 = line.len();
    grams
}

fn main() {
    let spare_total = 0;
    println!("{}", weight("flour"));
}
