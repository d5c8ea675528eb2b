use allwright_ax::memdom::MemDom;
use allwright_ax::{Context, Dom};
fn main() {
    let mut total = 0; let mut pass = 0;
    for path in std::env::args().skip(1) {
        let html = std::fs::read_to_string(&path).unwrap_or_default();
        let dom = MemDom::parse(&html);
        let context = Context::new(&dom);
        for el in dom.elements_with_attribute("data-expectedlabel") {
            let expected = dom.attribute(el, "data-expectedlabel").unwrap_or("").to_string();
            let expected: String = expected.split_ascii_whitespace().collect::<Vec<_>>().join(" ");
            let got = context.name(el).text;
            total += 1;
            if got == expected { pass += 1 } else {
                println!("FAIL {} [{}] expected {:?} got {:?} ({:?})", path.rsplit('/').next().unwrap_or(""), dom.attribute(el, "data-testname").unwrap_or(""), expected, got, context.role(el));
            }
        }
    }
    println!("{pass}/{total}");
}
