fn main() {
    println!("{}", rust_app::add(1, 2));
}
