# Host tests of the build and test pipeline itself.
UNIT_TESTS += tests/unit/test-tap-summary.sh
