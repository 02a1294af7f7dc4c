"""What the Extension Builder is built on that knows no door and checks no permission: the bundle's
checks (bundle.py), the logo's (logo.py), the frame's contract (frame.py)."""
