from inventory.crew import InventoryCrew


def run():
    crew = InventoryCrew()
    for sku in ["SKU-1", "SKU-2"]:
        crew.crew().kickoff(inputs={"sku": sku})
