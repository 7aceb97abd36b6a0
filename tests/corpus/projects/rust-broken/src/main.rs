mod parse;

fn total(prices: &[u32]) -> u32 {
    let count: u32 = prices.len();
    let mut sum = 0;
    for p in prices {
        sum += p;
    }
    sum + totl
}

fn main() {
    let unused_margin = 3;
    let prices = vec![1, 2, 3];
    println!("{}", total(&prices));
    println!("{}", parse::quantity("4"));
}
