#!/bin/sh
# An EDITOR for the fix-and-resend story: corrects the buyer's GLN in
# the work copy of testdata/edifact/orders_rejectable.edi (another
# company's GLN -> the sender's own), the error the simulated partner's
# CONTRL rejects. Usage:
#   EDITOR=testdata/fix-rejectable.sh   (the editor gets the file as $1)
set -eu
f=${1:?usage: fix-rejectable.sh FILE}
LC_ALL=C sed 's/NAD+BY+4012345000085::9/NAD+BY+4012345000009::9/' "$f" > "$f.fixing"
mv "$f.fixing" "$f"
