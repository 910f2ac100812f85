//! Writes a generated frictional contact problem ([`perp_cones::samples::friction_contact`])
//! as a Siconos `.dat` file, for `perp solve` on large problems (issue 14).
//!
//! ```text
//! cargo run --release -p perp-bench --example gen_fc -- DIM CONTACTS SEED OUT.dat
//! ```

use perp_catalogue::Problem;
use perp_cones::samples::friction_contact;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [dim, n, seed, out] = &a[..] else {
        return Err("usage: gen_fc DIM CONTACTS SEED OUT.dat".into());
    };
    let p = friction_contact(dim.parse()?, n.parse()?, seed.parse()?);
    perp_formats::convert::write_siconos(&Problem::Friction(p), Path::new(out))?;
    Ok(())
}
