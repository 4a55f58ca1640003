// The default agents and workflow are embedded with include_dir!, which cargo
// does not track; without this a changed or added file would not rebuild.
fn main() {
    println!("cargo:rerun-if-changed=agents");
    println!("cargo:rerun-if-changed=workflows");
}
