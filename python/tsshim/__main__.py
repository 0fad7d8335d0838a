"""python -m tsshim script.py ARGS: the launcher (tsshim_launcher.py).  The
package's import ran before this module (Python imports a package before its
__main__), which does no harm here: the script is counted anyway."""
from tsshim_launcher import python_main

python_main()
