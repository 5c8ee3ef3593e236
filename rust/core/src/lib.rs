//! ember's compiler core: the IR, its text form, inference, passes and a reference interpreter.
