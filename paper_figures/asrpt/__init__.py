"""Figure specs of the A-SRPT paper (Luo et al., prediction-assisted DDL scheduling)."""
