import sys

from opconform.cli import main

sys.exit(main())
