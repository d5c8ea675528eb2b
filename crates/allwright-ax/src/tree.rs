//! (Being written: see the issue "Core engine".)
