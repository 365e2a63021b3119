//! The server's behaviour for one run: the correct one, each variant's
//! choice made, then the fault's change. The seams (`behaviour`) know no
//! fault or variant; the faults and variants know the seams they bend; this
//! puts them together, once, for the handler.

use crate::behaviour::Behaviour;
use crate::fault::Fault;
use crate::variant::Variant;

impl Behaviour {
    /// The correct server with each variant's choice, then the fault's
    /// change: a fault stays a fault whatever the variants chose.
    pub(crate) fn new(fault: Option<Fault>, variants: &[Variant]) -> Self {
        let mut b = Behaviour::default();
        for variant in variants {
            variant.apply(&mut b);
        }
        if let Some(fault) = fault {
            fault.apply(&mut b);
        }
        b
    }
}
