"""The zoo: published KAIST result files, pinned in their repositories, read with their quirks, and their
numbers under both protocols.

`entries.py` holds every entry (a method's new file is one entry there), `specs.py` what an entry is,
`store.py` the files on this machine (downloaded and verified, or taken from a local folder),
`resolve.py` what ``zoo:NAME`` means wherever a result file goes, `listing.py` the table of
`kaist-kit zoo`, `figure.py` the comparison `kaist-kit compare --zoo` draws.
"""
