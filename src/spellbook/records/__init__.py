"""The machine's records: what a generated machine is made of and what a cast reports, below
every other layer."""
