"""Ordinary documentation questions over the manual pages of `bench/real_pages.py` (#28), labelled.

The real-pages check asks each page's NAME line, one relation, which the `kg` ranker leaves to
hybrid search. Users ask how-to questions instead, and their grammar mostly reads as a chain of two
or more relations ("How do I change the owner of a file?": `question.steps`), so the rules for
chain questions (two-hop expansion, the lower-case key lookup) reach them. This is the control that
can see harm there: questions written by hand from the pages' NAME lines and descriptions, in the
words a user would type (not the NAME line's), each with the page(s) that answer it. A question
whose pages are not among the loaded ones (another machine's manual pages) is skipped.
"""

from __future__ import annotations

from collections.abc import Collection

QUESTIONS: list[tuple[str, tuple[str, ...]]] = [
    ("How do I remove a directory that has no files in it?", ("rmdir.1.md",)),
    ("How can I see the tree of the processes that run on the system?", ("pstree.1.md",)),
    ("How do I send a message to the bus of the desktop session?", ("dbus-send.1.md",)),
    ("How do I find the version of the installed PostgreSQL?", ("pg_config.1.md",)),
    ("How do I sort the lines of a text file?", ("sort.1.md",)),
    ("How do I find the best common ancestor of two branches for a merge?", ("git-merge-base.1.md",)),
    ("How do I compare the commits of two versions of a branch?", ("git-range-diff.1.md",)),
    ("How do I back up a PostgreSQL database into a script file?", ("pg_dump.1.md",)),
    ("How do I search the contents of compressed files for a pattern?", ("xzgrep.1.md", "zfgrep.1.md")),
    ("How do I check the SHA256 checksum of a downloaded file?", ("sha256sum.1.md",)),
    ("How do I convert the character encoding of a text file?", ("iconv.1.md", "recode-sr-latin.1.md")),
    ("How do I compress a file to save space on the disk?", ("gzip.1.md", "bzcat.1.md", "unlz4.1.md")),
    ("Which users are logged in to this host right now?", ("users.1.md",)),
    ("How do I list the contents of a directory in long format?", ("vdir.1.md",)),
    ("How do I kill all the processes that have a given name?", ("killall.1.md", "pidwait.1.md")),
    ("How do I send a signal to a process by its id?", ("kill.1.md",)),
    ("How do I change the full name shown for my user account?", ("chfn.1.md",)),
    ("How much of the memory of the system is free?", ("free.1.md",)),
    ("How do I see how much space is left on each of the file systems?", ("df.1.md",)),
    ("How do I compare three versions of a file line by line?", ("diff3.1.md",)),
    ("How do I add a new role to the PostgreSQL server?", ("createuser.1.md",)),
    ("How do I restart one of the clusters of the PostgreSQL server?", ("pg_ctlcluster.1.md", "pg_ctl.1.md")),
    ("How do I create the data directory of a new database cluster?", ("initdb.1.md",)),
    ("How do I rename a file or move it to another directory?", ("mv.1.md",)),
    ("Which groups is the current user a member of?", ("groups.1.md",)),
    ("How do I show the changes between two commits of the repository?", ("git-diff.1.md",)),
    ("How do I move the HEAD of the repository back to an earlier commit?", ("git-reset.1.md",)),
    ("How do I discard the changes to a file in the working tree?", ("git-restore.1.md",)),
    ("How do I run a command every few seconds and watch its output?", ("watch.1.md",)),
    ("How do I get the directory part of the path of a file?", ("dirname.1.md",)),
    ("How do I join the lines of two files side by side?", ("paste.1.md",)),
    ("How do I look at the bytes of a binary file in hexadecimal?", ("hd.1.md",)),
    ("How do I generate a private key for RSA with OpenSSL?", ("openssl-genrsa.1ssl.md",)),
    ("How do I check that the certificate of a server is valid?", ("openssl-verify.1ssl.md",)),
    ("How do I record a profile of the performance of a program?", ("perf-record.1.md",)),
    ("Which control groups use the most of the resources of the machine?", ("systemd-cgtop.1.md",)),
    ("How do I create a temporary file in a script safely?", ("tempfile.1.md",)),
    ("How do I replace the duplicate copies of a file with hard links?", ("hardlink.1.md",)),
    ("How do I follow each symbolic link of a path to its end?", ("namei.1.md",)),
    ("How do I make a tarball of the files of a commit of the repository?", ("git-archive.1.md",)),
    ("How do I reclaim the space of the dead rows of a PostgreSQL database?", ("vacuumdb.1.md",)),
    ("What is the state of the network links of the machine?", ("networkctl.1.md",)),
    ("How do I protect the entries of a zip file with a password?", ("zipcloak.1.md",)),
    ("How do I reset the write-ahead log of a damaged PostgreSQL cluster?", ("pg_resetwal.1.md",)),
    ("How do I look up the entries of the passwd database of the system?", ("getent.1.md",)),
]


def doc_questions(pages: Collection[str]) -> list[tuple[str, dict[str, int]]]:
    """The questions whose answer pages are all among `pages` (file names), each with its relevance labels."""
    return [(q, {a: 2 for a in answers}) for q, answers in QUESTIONS if all(a in pages for a in answers)]
