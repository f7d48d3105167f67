"""The fourth line of defence: an OS sandbox under the Bash classifier."""
