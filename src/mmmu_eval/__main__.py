import sys

from mmmu_eval.cli.main import main

sys.exit(main())
