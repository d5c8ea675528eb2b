use allwright_ax::memdom::MemDom;
use allwright_ax::Context;
fn main() {
    let html = std::env::args().nth(1).unwrap_or_default();
    let dom = MemDom::parse(&html);
    let target = dom.element_by_id_attribute("target").unwrap_or(allwright_ax::NodeId(0));
    let context = Context::new(&dom);
    println!("role={:?} name={:?} desc={:?}", context.role(target), context.name(target), context.description(target));
}
