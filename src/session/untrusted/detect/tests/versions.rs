//! The attacker tests of each rule version, one file each.

use super::*;

#[path = "v18.rs"]
mod v18;
#[path = "v19.rs"]
mod v19;
#[path = "v20.rs"]
mod v20;
#[path = "v21.rs"]
mod v21;
#[path = "v22.rs"]
mod v22;
#[path = "v23.rs"]
mod v23;
#[path = "v24.rs"]
mod v24;
#[path = "v25.rs"]
mod v25;
#[path = "v26.rs"]
mod v26;
#[path = "v27.rs"]
mod v27;
#[path = "v28.rs"]
mod v28;
#[path = "v29.rs"]
mod v29;
#[path = "v30.rs"]
mod v30;
#[path = "v31.rs"]
mod v31;
#[path = "v32.rs"]
mod v32;
#[path = "v33.rs"]
mod v33;
#[path = "v34.rs"]
mod v34;
#[path = "v36.rs"]
mod v36;
