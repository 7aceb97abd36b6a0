fn mean(values: &[f64]) -> f64 {
    let total: f64 = values.iter().sum();
    total / cnt as f64
}

fn label(name: &str) -> String {
    name.to_uppercas()
}

fn main() {
    println!("{} {}", mean(&[1.0, 2.0]), label("a"));
}
