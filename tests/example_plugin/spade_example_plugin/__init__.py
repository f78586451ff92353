"""An out-of-tree SPADE plugin contributing one environment."""
