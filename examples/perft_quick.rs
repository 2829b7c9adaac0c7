fn main() {
    let depth: u32 = std::env::args().nth(1).and_then(|d| d.parse().ok()).unwrap_or(9);
    let t = std::time::Instant::now();
    let n = othello::search::perft::perft(othello::Board::START, depth);
    let s = t.elapsed().as_secs_f64();
    println!("{depth} {n} {s:.3}s {:.0} M/s", n as f64 / s / 1e6);
}
