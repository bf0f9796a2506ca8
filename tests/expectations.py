"""The `# expect:` harness the suite shares with plugin authors: `dralint.testing`."""

from dralint.testing import (  # noqa: F401
    EMPTY_PATH,
    ERROR_TYPES,
    SEVERITIES,
    Block,
    Expectation,
    ExpectationError,
    Fixture,
    Key,
    check_fixture,
    compare,
    covered,
    key_of,
    parse_expect,
    read_fixture,
)
