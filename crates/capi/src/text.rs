//! The strings perp hands to C: the last refused call's message, the solver names of a family,
//! the status names and the version.

use super::*;

/// Copies the message of the calling thread's last refused call (empty after a call that
/// was not refused) into `buf` as a NUL-terminated string of at most `len` bytes, truncated
/// at a character boundary if needed. Returns the message's full length in bytes (without
/// the NUL), so a caller can size `buf`; `buf` may be NULL (with any `len`) to ask only that.
#[no_mangle]
pub unsafe extern "C" fn perp_last_error_message(buf: *mut c_char, len: usize) -> usize {
    let msg = LAST_ERROR.with(|e| e.borrow().clone());
    unsafe { copy_text(&msg, buf, len) }
}

pub(super) unsafe fn copy_text(msg: &str, buf: *mut c_char, len: usize) -> usize {
    if !buf.is_null() && len > 0 {
        let mut k = msg.len().min(len - 1);
        while !msg.is_char_boundary(k) {
            k -= 1;
        }
        // SAFETY: non-null; the caller promises `len` writable bytes, and k + 1 <= len.
        unsafe {
            std::ptr::copy_nonoverlapping(msg.as_ptr().cast::<c_char>(), buf, k);
            *buf.add(k) = 0;
        }
    }
    msg.len()
}

/// Copies the catalogue's solver names for `family` (a `PerpFamily` value), separated by
/// commas, into `buf` as `perp_last_error_message` does, and returns the full length.
/// `PERP_FAMILY_ANY` lists every solver of the catalogue once (a name of several families,
/// such as `fb-newton`, once). An unknown family gives the empty string.
#[no_mangle]
pub unsafe extern "C" fn perp_solver_names(family: i32, buf: *mut c_char, len: usize) -> usize {
    let names = if family == PerpFamily::Lcp as i32 {
        perp_catalogue::names(Family::Lcp).join(",")
    } else if family == PerpFamily::Friction as i32 {
        perp_catalogue::names(Family::Friction).join(",")
    } else if family == PerpFamily::Mcp as i32 {
        perp_catalogue::names(Family::Mcp).join(",")
    } else if family == PerpFamily::Any as i32 {
        perp_catalogue::all_names().join(",")
    } else {
        String::new()
    };
    unsafe { copy_text(&names, buf, len) }
}

/// The name of a status (`"solved"`, `"max_iterations"`, …, `"invalid_input"`,
/// `"null_pointer"`, `"internal_error"`; `"unknown"` for other values), a static string.
#[no_mangle]
pub extern "C" fn perp_status_name(status: i32) -> *const c_char {
    let s: &'static CStr = match status {
        0 => c"solved",
        1 => c"max_iterations",
        2 => c"time_limit",
        3 => c"stalled",
        4 => c"ray_termination",
        5 => c"infeasible",
        6 => c"numerical_failure",
        7 => c"interrupted",
        8 => c"other",
        9 => c"diverged",
        -1 => c"invalid_input",
        -2 => c"null_pointer",
        -3 => c"internal_error",
        _ => c"unknown",
    };
    s.as_ptr()
}

/// perp's version, a static string such as `"0.1.0"`.
#[no_mangle]
pub extern "C" fn perp_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
