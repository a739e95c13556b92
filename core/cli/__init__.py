"""The ``referee`` command line.

Every sub-command is a thin layer over library functions: parse the options,
call ``referee.core``, print or write the result. A :class:`RefereeError`
(bad input, bad option) is printed as one line and exits with status 2;
there is never a traceback for a user's mistake.
"""
