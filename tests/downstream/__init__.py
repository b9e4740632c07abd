"""A third party's side of the C-level API: Cython modules that cimport the installed
package, and the helper that compiles them (tests/test_capi.py imports it from here,
as a package of the tests folder)."""
