fn main() {
    println!("polyfold");
}
