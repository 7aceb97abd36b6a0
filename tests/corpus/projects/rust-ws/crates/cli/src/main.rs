fn main() {
    println!("{}", ledger_core::balance(&[1, 2, 3]));
}
