"""The kit's tools around scoring: statistics, data checks, synthetic sets, simulated detectors, the demo."""
