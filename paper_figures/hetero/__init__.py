"""Figure and table specs of the HAS/JPS paper (Liu et al., TPDS 2024)."""
