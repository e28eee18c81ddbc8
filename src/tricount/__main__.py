import sys

from tricount.cli import main

sys.exit(main())
