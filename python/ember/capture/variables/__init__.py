"""Variable trackers: what capture knows about each Python value it meets."""
