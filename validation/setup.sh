# SPDX-License-Identifier: BSD-3-Clause
# Sourced first by the validation scripts that run as tests: `. "$(dirname "$0")/setup.sh" "$@"`.
# Sets strict mode without -e (the scripts count their failures), `popsim` and `data` from the
# arguments POPSIM [DATA] (defaults: build/popsim; $POPSIM_DATA, else ../shared/data), skips the
# test without the data (require_data.sh), and makes `work`, a scratch folder removed at exit.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
popsim=${1:-$here/build/popsim}
data=${2:-${POPSIM_DATA:-$here/../shared/data}}
. "$here/validation/require_data.sh"
require_data "$data"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
