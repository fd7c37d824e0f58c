"""python -m adapters.cli"""

import sys

from adapters.cli.main import main

sys.exit(main())
